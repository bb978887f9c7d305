import { expertSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The doctors' answers (医生管理), as the routes give them, against core's contract (content-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

describe('the doctors answer as core describes them', () => {
  it('adding, changing, reading, listing (staff and public) and removing a doctor', async () => {
    const body = { studyId, name: '张医生', title: '主任医师', hospital: '第一医院', department: '骨科' };
    const created = contractData(expertSchema, await t.call(admin, 'POST', '/api/v1/expert', body));
    const url = `/api/v1/expert/${created.id}`;
    contractData(expertSchema, await t.call(admin, 'PUT', url, { ...body, specialty: '腰椎' }));
    contractData(expertSchema, await t.call(admin, 'GET', `${url}?studyId=${studyId}`));
    const query = `?studyId=${studyId}&pageNum=1&pageSize=10`;
    const list = contractData(pageOf(expertSchema), await t.call(admin, 'GET', `/api/v1/experts${query}`));
    expect(list.total).toBe(1);
    contractData(pageOf(expertSchema), await t.call(admin, 'GET', `/api/ignore/experts${query}`));
    expect(contractData(z.null(), await t.call(admin, 'DELETE', `${url}?studyId=${studyId}`))).toBeNull();
  });
});
