import { consultViewSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractData, pageOf } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** 在线咨询's staff answers, as the routes give them, against core's contract (consult-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let subjectId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '咨询契约',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectId = enrolled.body.data.id;
});
afterAll(() => t.close());

const BASE = '/api/v1/advisory/manager';

describe('the consultations answer as core describes them', () => {
  it('a question on a patient’s behalf, the list, one question, answering and closing', async () => {
    const asked = contractData(
      consultViewSchema,
      await t.call(admin, 'POST', BASE, { studyId, subjectId, title: '术后复查', question: '术后多久复查？' }),
    );
    const list = contractData(
      pageOf(consultViewSchema),
      await t.call(admin, 'GET', `${BASE}/list?studyId=${studyId}&state=0&pageNum=1&pageSize=10`),
    );
    expect(list.list.map((c) => c.id)).toContain(asked.id);
    contractData(consultViewSchema, await t.call(admin, 'GET', `${BASE}/${asked.id}?studyId=${studyId}`));
    const answered = contractData(
      consultViewSchema,
      await t.call(admin, 'PUT', `${BASE}/${asked.id}/answer`, { studyId, answer: '术后三个月复查。' }),
    );
    expect(answered.state).toBe(1);
    const closed = contractData(
      consultViewSchema,
      await t.call(admin, 'PUT', `${BASE}/${asked.id}/close`, { studyId }),
    );
    expect(closed.state).toBe(2);
  });
});
