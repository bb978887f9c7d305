import { exportLogPageSchema, startedJobSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { waitForJob } from './export.service.js';

/** The export's answers, as the routes give them, against core's contract (export.ts, jobs-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-export-contract-test-${process.pid}` } });
  ({ admin, studyId } = await openDemoStudy(t));
  await enrolDemoPatient(t, admin, studyId, { subjectName: '导出契约' });
});
afterAll(() => t.close());

describe('the export answers as core describes it', () => {
  it('a study export and a search export start jobs; the log lists them', async () => {
    const study = contractData(
      startedJobSchema,
      await t.call(admin, 'POST', '/api/v3/business/search/export', { studyId, format: 'csvWide' }),
    );
    contractData(
      startedJobSchema,
      await t.call(admin, 'POST', '/api/v2/business/search/export', {
        studyId,
        format: 'excel',
        conditions: { join: 'and', groups: [] },
      }),
    );
    expect((await waitForJob(t.ctx, study.jobId, 20_000))?.state).toBe('done');
    const log = contractData(
      exportLogPageSchema,
      await t.call(admin, 'GET', `/api/business/search/export/log?studyId=${studyId}&pageNum=1&pageSize=10`),
    );
    expect(log.total).toBe(2);
  });
});
