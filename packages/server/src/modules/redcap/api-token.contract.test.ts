import { apiTokenRowSchema, apiTokenStudySchema, createdApiTokenSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The API tokens' answers, as the routes give them, against core's contract (api-token-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

const BASE = '/api/system/user/profile/apiToken';

describe('the API tokens answer as core describes them', () => {
  it('the studies, a new token, the list and a revoked token', async () => {
    contractData(z.array(apiTokenStudySchema), await t.call(admin, 'GET', `${BASE}/studies`));
    const created = contractData(createdApiTokenSchema, await t.call(admin, 'POST', BASE, { studyId }));
    expect(contractData(z.null(), await t.call(admin, 'DELETE', `${BASE}/${created.id}`))).toBeNull();
    const list = contractData(z.array(apiTokenRowSchema), await t.call(admin, 'GET', BASE));
    expect(list[0]!.revokeTime).not.toBeNull();
  });
});
