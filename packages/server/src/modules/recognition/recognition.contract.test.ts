import { recognitionResultSchema, recognitionSourceSchema, recognitionTempSchema } from '@ecrf/core';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recognitions } from '../../db/schema/index.js';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * Recognition's answers, as the routes give them, against core's contract (recognition/contract.ts). The OCR job
 * itself is recognition.routes.test.ts's: here its outcome is written as the job writes it.
 */

/** A 1×1 PNG: the upload checks what a file is, not what it is called. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

let t: TestApp;
let admin: string;
let studyId: number;
let crfId: number;
let subjectRecordId: number;
let fileKey: string;

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  crfId = crfIds['实验室检查']!;
  ({ subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '识别契约' }));
  const form = multipart({}, [{ fileName: '化验单.png', data: Buffer.from(PNG_1X1, 'base64') }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  fileKey = uploaded.json().data.fileKey;
});
afterAll(() => t.close());

describe('recognition answers as core describes them', () => {
  it('a tempId, a finished recognition, the source images and linking a record', async () => {
    contractData(
      recognitionTempSchema,
      await t.call(admin, 'POST', `/api/v1/imgrec/temp?studyId=${studyId}`, { fileKey, crfId, subjectRecordId }),
    );
    const [row] = await t.db.select().from(recognitions).where(eq(recognitions.fileKey, fileKey));
    await t.db
      .update(recognitions)
      .set({ state: 'done', usedAt: new Date(), type: 2, index: 0, rows: [] })
      .where(eq(recognitions.id, row!.id));

    contractData(recognitionResultSchema, await t.call(admin, 'GET', `/api/v1/imgrec/${row!.id}?studyId=${studyId}`));
    const sources = contractData(
      z.array(recognitionSourceSchema),
      await t.call(
        admin,
        'GET',
        `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subjectRecordId}&crfId=${crfId}`,
      ),
    );
    expect(sources).toHaveLength(1);

    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId,
      version: 0,
      values: {},
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const linked = await t.call(admin, 'PUT', `/api/v1/imgrec/${row!.id}/record?studyId=${studyId}`, {
      crfDataRecordId: saved.body.data.crfDataRecordId,
    });
    expect(contractData(z.null(), linked)).toBeNull();
  });
});
