import {
  crfAuditRowSchema,
  crfDataRowSchema,
  crfMenuNodeSchema,
  crfOverviewSchema,
  crfPatientSchema,
  crfRecordDetailSchema,
  crfSaveResultSchema,
  sdvMarksSchema,
  signatureSchema,
  staleRecordSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seedDemoStudy } from '../../db/demo-study.js';
import { contractData, expectContract } from '../../test/contract.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

/** The CRF page's answers, as the routes give them, against core's contract (crf-record-contract.ts). */

let t: TestApp;
let admin: string;
let subjectRecordId: number;
let vitalsId: number;
let followUpId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-crf-contract-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  const studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id as number;
  const crfs = (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data as Array<{
    id: number;
    title: string;
  }>;
  vitalsId = crfs.find((c) => c.title === '生命体征')!.id;
  followUpId = crfs.find((c) => c.title === '术后随访')!.id;
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '契约',
    gender: 0,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectRecordId = enrolled.body.data.subjectRecordId as number;
});
afterAll(() => t.close());

const save = (body: object) => t.call(admin, 'PUT', '/api/v3/business/crf', body);
const get = (url: string) => t.call(admin, 'GET', url);

describe('the CRF page answers as core describes them', () => {
  it('menu, a new form, a save, the saved form, SDV, history, overview and the patient', async () => {
    contractData(z.array(crfMenuNodeSchema), await get(`/api/business/crf/menu/${subjectRecordId}`));
    contractData(crfRecordDetailSchema, await get(`/api/v3/business/crf/${subjectRecordId}?crfId=${vitalsId}`));

    const body = { subjectRecordId, crfId: vitalsId, version: 0, values: { sbp: 130, dbp: 80 }, requestId: 'c-1' };
    const { crfDataRecordId } = contractData(crfSaveResultSchema, await save(body));
    expect(contractData(crfSaveResultSchema, await save(body)).repeated).toBe(true);

    contractData(
      sdvMarksSchema,
      await t.call(admin, 'PUT', '/api/business/crf/sdv', { crfDataRecordId, verified: true }),
    );
    contractData(
      crfRecordDetailSchema,
      await get(`/api/v3/business/crf/${subjectRecordId}?crfId=${vitalsId}&crfDataRecordId=${crfDataRecordId}`),
    );
    const history = contractData(
      z.array(crfAuditRowSchema),
      await get(`/api/business/crf/audit?crfDataRecordId=${crfDataRecordId}`),
    );
    expect(history.length).toBeGreaterThan(0);
    contractData(crfOverviewSchema, await get(`/api/v3/business/overview/${subjectRecordId}`));
    contractData(crfPatientSchema, await get(`/api/business/ducking/patientInfo/${subjectRecordId}`));
  });

  it('a repeatable form lists its records; a stale save answers the record as it is now', async () => {
    const first = contractData(
      crfSaveResultSchema,
      await save({ subjectRecordId, crfId: followUpId, version: 0, values: { fu_date: '2026-11-01' } }),
    );
    await save({ subjectRecordId, crfId: followUpId, version: 0, values: { fu_date: '2026-11-02' } });
    const rows = contractData(
      z.array(crfDataRowSchema),
      await get(`/api/business/crf/data/list/${subjectRecordId}?crfId=${followUpId}`),
    );
    expect(rows).toHaveLength(2);

    const edit = (date: string) =>
      save({
        subjectRecordId,
        crfId: followUpId,
        crfDataRecordId: first.crfDataRecordId,
        version: 1,
        values: { fu_date: date },
      });
    await edit('2026-11-03');
    const stale = await edit('2026-11-04');
    expect(stale.status).toBe(409);
    expectContract(staleRecordSchema, stale.body.data);
  });

  it('signing and the signatures list', async () => {
    contractData(
      signatureSchema,
      await t.call(admin, 'PUT', '/api/v1/business/subject/sign', { subjectRecordId, password: TEST_ADMIN_PASSWORD }),
    );
    contractData(
      z.array(signatureSchema),
      await get(`/api/business/subject/signatures?subjectRecordId=${subjectRecordId}`),
    );
    const detail = contractData(
      crfRecordDetailSchema,
      await get(`/api/v3/business/crf/${subjectRecordId}?crfId=${vitalsId}`),
    );
    expect(detail.signature).not.toBeNull();
  });
});
