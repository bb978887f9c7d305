import { operLogSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractData, pageOf } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The operation log's answers, as the route gives them, against core's contract (monitor-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  await enrolDemoPatient(t, admin, studyId, { subjectName: '日志契约' });
  await t.app.flushOperLogs();
});
afterAll(() => t.close());

describe('the operation log answers as core describes it', () => {
  it('a study’s entries and the whole log, filtered by day', async () => {
    const url = '/api/monitor/operlog/list?pageNum=1&pageSize=50';
    const study = contractData(pageOf(operLogSchema), await t.call(admin, 'GET', `${url}&studyId=${studyId}`));
    expect(study.total).toBeGreaterThan(0);
    contractData(pageOf(operLogSchema), await t.call(admin, 'GET', `${url}&beginTime=2000-01-01&endTime=2100-12-31`));
  });
});
