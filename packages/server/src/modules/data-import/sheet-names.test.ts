import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords } from '../../db/schema/index.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { waitForJob } from '../export/export.service.js';

/**
 * Form titles that Excel refuses or repeats as sheet names: two long titles that differ only after Excel's 31
 * characters, and `' '影像'`, which would leave a quote at an end. The import template, the reading of a filled
 * template and the data export all name their sheets by one rule (excelSheetNames in @ecrf/core).
 */
const LONG = '术后第一年随访问卷（疼痛评分、功能评分、影像学评估与并发症记录）';
const FIRST = LONG.slice(0, 31);
const SECOND = `${LONG.slice(0, 28)}(2)`;
let t: TestApp;
let admin: string;
let studyId: number;
let code: string;
let subjectRecordId: number;
const uploaded: Record<string, number> = {};

async function upload(title: string) {
  const res = await t.call(admin, 'POST', '/api/system/crf', {
    studyId,
    definition: {
      title,
      option: {},
      children: [{ name: 'note', title: '备注', type: 'input', option: {}, children: [] }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.crfs[0].id as number;
}

async function workbookOf(file: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(file as unknown as ArrayBuffer);
  return wb;
}

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  uploaded.first = await upload(`${LONG}甲`);
  uploaded.second = await upload(`${LONG}乙`);
  uploaded.quoted = await upload("' '影像'");
  ({ identificationCode: code, subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '表名' }));
});
afterAll(() => t.close());

describe('sheet names of forms Excel would refuse or repeat', () => {
  it('SRCH-06: the import template names them by their first 31 characters, then (2), and 影像; a filled (2) imports into the second form', async () => {
    const template = await t.app.inject({
      method: 'GET',
      url: `/api/business/import/template?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(template.statusCode, template.body).toBe(200);
    const wb = await workbookOf(template.rawPayload);
    expect(wb.worksheets.map((s) => s.name)).toEqual(expect.arrayContaining([FIRST, SECOND, '影像']));

    const second = wb.getWorksheet(SECOND)!;
    second.addRow([code, '第二张表']);
    for (const name of wb.worksheets.map((s) => s.name)) {
      if (![SECOND, '说明', '数据字典'].includes(name)) wb.removeWorksheet(wb.getWorksheet(name)!.id);
    }
    const body = multipart({}, [{ fileName: '导入.xlsx', data: Buffer.from(await wb.xlsx.writeBuffer()) }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/business/import/multi_crf_sheet/multi_thread?studyId=${studyId}&submitType=0`,
      headers: { ...body.headers, authorization: `Bearer ${admin}` },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const records = await t.db
      .select({ crfId: crfDataRecords.crfId, values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), eq(crfDataRecords.crfId, uploaded.second!)));
    expect(records.map((r) => r.values.note)).toEqual(['第二张表']);
    const [first] = await t.db
      .select({ id: crfDataRecords.id })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), eq(crfDataRecords.crfId, uploaded.first!)));
    expect(first).toBeUndefined();
  });

  it('SRCH-05: the Excel data export names the same forms alike, beside its 数据字典', async () => {
    const res = await t.call(admin, 'POST', '/api/v3/business/search/export', { studyId, format: 'excel' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const job = await waitForJob(t.ctx, res.body.data.jobId as string, 60_000);
    expect(job?.state, JSON.stringify(job)).toBe('done');
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/system/jobs/${res.body.data.jobId}/result`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(download.statusCode).toBe(200);
    const names = (await workbookOf(download.rawPayload)).worksheets.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining([FIRST, SECOND, '影像']));
    expect(names.at(-1)).toBe('数据字典');
  });
});
