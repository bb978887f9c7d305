import { linkableRecordSchema, medicalRecordSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The medical records' answers (病历管理), as the routes give them, against core's contract (content-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let subjectId: number;
let crfDataRecordId: number;
let fileKey: string;

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '病历契约',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subjectId = enrolled.body.data.id;
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: enrolled.body.data.subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { hr: 72 },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  crfDataRecordId = saved.body.data.crfDataRecordId;
  const body = multipart({}, [{ fileName: '出院小结.pdf', data: '%PDF-1.4\n', type: 'application/pdf' }]);
  const up = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  expect(up.statusCode, up.body).toBe(200);
  fileKey = (up.json() as { data: { fileKey: string } }).data.fileKey;
});
afterAll(() => t.close());

describe('the medical records answer as core describes them', () => {
  it('adding, changing, linking, reading, listing and removing a record, and the linkable CRF records', async () => {
    const body = {
      studyId,
      subjectId,
      title: '第一次住院出院小结',
      category: '出院小结',
      visitDate: '2026-01-02',
      files: [{ fileKey, fileName: '出院小结.pdf' }],
    };
    const created = contractData(medicalRecordSchema, await t.call(admin, 'POST', '/api/v1/medical', body));
    const url = `/api/v1/medical/${created.id}`;
    contractData(
      medicalRecordSchema,
      await t.call(admin, 'PUT', url, { ...body, hospital: '第一医院', reason: '补充医院' }),
    );
    const linkable = contractData(
      z.array(linkableRecordSchema),
      await t.call(admin, 'GET', `/api/v1/medical/crfs?studyId=${studyId}&subjectId=${subjectId}`),
    );
    expect(linkable.map((r) => r.crfDataRecordId)).toContain(crfDataRecordId);
    const linked = contractData(
      medicalRecordSchema,
      await t.call(admin, 'PUT', '/api/v1/medical/crf', { studyId, id: created.id, crfDataRecordId }),
    );
    expect(linked.crfTitle).toBe('生命体征');
    contractData(medicalRecordSchema, await t.call(admin, 'GET', `${url}?studyId=${studyId}`));
    contractData(
      pageOf(medicalRecordSchema),
      await t.call(admin, 'GET', `/api/v1/medicals?studyId=${studyId}&pageNum=1&pageSize=10`),
    );
    const removed = await t.call(admin, 'DELETE', `${url}?studyId=${studyId}&reason=${encodeURIComponent('重复录入')}`);
    expect(contractData(z.null(), removed)).toBeNull();
  });
});
