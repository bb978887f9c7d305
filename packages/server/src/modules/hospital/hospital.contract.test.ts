import { hospitalSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The study's hospitals (项目介绍), as the routes give them, against core's contract (content-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

describe('the hospitals answer as core describes them', () => {
  it('adding, changing and listing (staff and public) a hospital', async () => {
    const body = { studyId, name: '第一医院', address: '人民路1号', phone: '010-12345678' };
    const created = contractData(hospitalSchema, await t.call(admin, 'POST', '/api/v1/hospital', body));
    contractData(
      hospitalSchema,
      await t.call(admin, 'PUT', `/api/v1/hospital/${created.id}`, { ...body, contact: '李老师' }),
    );
    contractData(z.array(hospitalSchema), await t.call(admin, 'GET', `/api/v1/hospital?studyId=${studyId}`));
    contractData(z.array(hospitalSchema), await t.call(admin, 'GET', `/api/ignore/hospital?studyId=${studyId}`));
  });
});
