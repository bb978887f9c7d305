import { and, asc, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, crfDataRecords } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 缺失原因 (issue 37) in the Excel data import: a cell holding one of the study's codes (ND, its label 未查, or
 * 未查(ND)) marks the item, shown as such in the preview and written as a mark; a value in a marked item clears it.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let code: string;
let recordId: number;

async function workbook(sheets: Record<string, Array<Array<string | number | null>>>): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(name);
    for (const row of rows) ws.addRow(row);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

async function importFile(file: Buffer, query: Record<string, string>) {
  const body = multipart({}, [{ fileName: '导入.xlsx', data: file }]);
  const qs = new URLSearchParams({ studyId: String(studyId), submitType: '0', ...query }).toString();
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/business/import/multi_crf_sheet/multi_thread?${qs}`,
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

const stored = async () =>
  (
    await t.db
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.subjectRecordId, recordId), eq(crfDataRecords.crfId, crfIds['生命体征']!)))
  )[0];

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-import-missing-test-${process.pid}` } });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '导入缺失',
    gender: 1,
    birth: '1960-05-01',
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  code = enrolled.body.data.identificationCode;
  recordId = enrolled.body.data.subjectRecordId;
});
afterAll(() => t.close());

describe('缺失原因 in the Excel data import (issue 37)', () => {
  it('a cell holding a code, its label or 未查(ND) is a missing mark: previewed as [缺失:…], written as a mark, audited', async () => {
    const file = await workbook({
      生命体征: [
        ['编号', 'sbp', 'dbp', 'hr'],
        [code, '未查(ND)', '不适用', 'UNK'],
      ],
    });
    const preview = await importFile(file, { dryRun: 'true' });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const row = preview.body.data.rows.find((r: { sheet: string }) => r.sheet === '生命体征');
    expect(row).toMatchObject({ action: 'create', errors: [] });
    expect(row.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ item: 'sbp', old: '', new: '[缺失:ND]' }),
        expect.objectContaining({ item: 'dbp', old: '', new: '[缺失:NA]' }),
        expect.objectContaining({ item: 'hr', old: '', new: '[缺失:UNK]' }),
      ]),
    );
    expect(await stored()).toBeUndefined();

    const res = await importFile(file, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const record = (await stored())!;
    expect(record.missing).toEqual({ sbp: 'ND', dbp: 'NA', hr: 'UNK' });
    expect(record.values).not.toHaveProperty('sbp');
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, recordId), eq(auditEvents.itemName, 'sbp')))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({ newValue: '[缺失:ND]' });
  });

  it('a value in a marked item clears its mark; the other marks stay', async () => {
    const file = await workbook({
      生命体征: [
        ['编号', 'sbp'],
        [code, 120],
      ],
    });
    const preview = await importFile(file, { dryRun: 'true' });
    const row = preview.body.data.rows.find((r: { sheet: string }) => r.sheet === '生命体征');
    expect(row.changes).toEqual([expect.objectContaining({ item: 'sbp', old: '[缺失:ND]' })]);
    const res = await importFile(file, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const record = (await stored())!;
    expect(record.missing).toEqual({ dbp: 'NA', hr: 'UNK' });
    expect(String(record.values.sbp)).toBe('120');
  });

  it('the template’s 说明 sheet lists the study’s codes (缺失原因代码), with how a cell uses them', async () => {
    // A code the data manager added is listed too: the template is the study's, not the defaults.
    const codes = await t.call(admin, 'GET', `/api/business/study/missing_codes?studyId=${studyId}`);
    expect(codes.status, JSON.stringify(codes.body)).toBe(200);
    const set = await t.call(admin, 'PUT', '/api/business/study/missing_codes', {
      studyId,
      codes: [...codes.body.data.codes, { code: 'LOST', label: '样本丢失' }],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/business/import/template?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.statusCode).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const lines: string[] = [];
    wb.getWorksheet('说明')!.eachRow((row) => lines.push(String(row.getCell(1).value ?? '')));
    const at = lines.indexOf('缺失原因代码');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toContain('未查(ND)');
    expect(lines.slice(at + 2)).toEqual([
      '代码 = 名称',
      'ND = 未查',
      'NA = 不适用',
      'UNK = 未知',
      'ASKU = 拒绝回答',
      'LOST = 样本丢失',
    ]);
  });
});
