import { imageUrlResultSchema, importAnswerSchema, importPreviewSchema } from '@ecrf/core';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The data import's answers, as the routes give them, against core's contract (data-import.ts). */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let t: TestApp;
let admin: string;
let studyId: number;
let code: string;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-import-contract-test-${process.pid}` } });
  ({ admin, studyId } = await openDemoStudy(t));
  ({ identificationCode: code } = await enrolDemoPatient(t, admin, studyId, { subjectName: '导入契约' }));
});
afterAll(() => t.close());

async function send(url: string, fileName: string, data: Buffer) {
  const form = multipart({}, [{ fileName, data }]);
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

/** A workbook of one sheet, 生命体征, with these rows (the header first). */
async function vitals(rows: Array<Array<string | number>>) {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('生命体征');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('the data import answers as core describes it', () => {
  it('a preview with an error, an import and an image attached by URL', async () => {
    const url = `/api/business/import/multi_crf_sheet/multi_thread?studyId=${studyId}&submitType=0`;
    const wrong = await vitals([
      ['编号', 'hr', '不存在的列'],
      [code, 70, 1],
    ]);
    const preview = contractData(importPreviewSchema, await send(`${url}&dryRun=true`, '导入.xlsx', wrong));
    expect(preview.sheetErrors.length).toBeGreaterThan(0);
    const right = await vitals([
      ['编号', 'hr'],
      [code, 70],
    ]);
    contractData(importPreviewSchema, await send(`${url}&dryRun=true`, '导入.xlsx', right));
    const answer = contractData(importAnswerSchema, await send(url, '导入.xlsx', right));
    expect(answer.result?.importedPatients).toBe(1);

    const uploaded = await send(`/api/common/file/upload?studyId=${studyId}`, '片子.png', PNG);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    contractData(
      z.array(imageUrlResultSchema),
      await t.call(admin, 'POST', '/api/business/import/image_urls', {
        studyId,
        items: [
          {
            identificationCode: code,
            crf: '影像学检查',
            item: 'xray',
            url: `/api/v1/fileupload/downfile?fileKey=${uploaded.body.data.fileKey}`,
          },
        ],
      }),
    );
  });
});
