import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { exportFile } from '../../test/export-fixture.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** 缺失原因 (issue 37) in the export: `<item>_missing` holds the code, for items some record of the study marks. */

let t: TestApp;
let admin: string;
let studyId: number;
let marked: string;
let valued: string;

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  const save = async (name: string, body: object) => {
    const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: name });
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: demo.crfIds['生命体征'],
      version: 0,
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return patient.identificationCode;
  };
  marked = await save('缺失甲', { values: { dbp: '80' }, missing: { sbp: 'ND' } });
  valued = await save('缺失乙', { values: { sbp: '120', dbp: '80' } });
});
afterAll(() => t.close());

const parseCsv = (file: Buffer) =>
  Papa.parse<Record<string, string>>(file.toString('utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  });

describe('missing-data codes in the export', () => {
  it('CSV wide: sbp_missing right after sbp holds ND for the marked record, blank for the other; no column for unmarked items', async () => {
    const wide = parseCsv(await exportFile(t, { admin, studyId }, { format: 'csvWide' }));
    const fields = wide.meta.fields!;
    expect(fields.indexOf('sbp_missing')).toBe(fields.indexOf('sbp') + 1);
    expect(fields).not.toContain('dbp_missing');
    const row = (code: string) => wide.data.find((r) => r.subject_code === code && r.sbp_missing !== undefined)!;
    expect(row(marked)).toMatchObject({ sbp: '', sbp_missing: 'ND' });
    expect(row(valued)).toMatchObject({ sbp: '120', sbp_missing: '' });
  });

  it('CSV long: a row for the mark, item sbp_missing, value the code', async () => {
    const long = parseCsv(await exportFile(t, { admin, studyId }, { format: 'csvLong' }));
    const rows = long.data.filter((r) => r.subject_code === marked && r.item.startsWith('sbp'));
    expect(rows.map((r) => [r.item, r.value])).toContainEqual(['sbp_missing', 'ND']);
  });

  it('Excel: the form’s sheet has the column with the code', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await exportFile(t, { admin, studyId }, { format: 'excel' })) as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('生命体征')!;
    const names = (sheet.getRow(2).values as unknown[]).slice(1).map(String);
    const col = names.indexOf('sbp_missing');
    expect(col).toBeGreaterThan(-1);
    const cells: unknown[] = [];
    sheet.eachRow((row, n) => {
      if (n > 2) cells.push((row.values as unknown[]).slice(1)[col]);
    });
    expect(cells).toContain('ND');
  });

  it('Excel: the data dictionary lists the study’s codes, and the sbp_missing row’s options are the codes', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await exportFile(t, { admin, studyId }, { format: 'excel' })) as unknown as ArrayBuffer);
    const rows = (wb.getWorksheet('数据字典')!.getSheetValues() as unknown[][])
      .filter(Array.isArray)
      .map((r) => r.slice(1));
    expect(rows.filter((r) => r[0] === '（缺失原因代码）').map((r) => [r[1], r[2]])).toEqual([
      ['ND', '未查'],
      ['NA', '不适用'],
      ['UNK', '未知'],
      ['ASKU', '拒绝回答'],
    ]);
    const mark = rows.find((r) => r[1] === 'sbp_missing')!;
    expect(mark[5]).toBe('ND=未查；NA=不适用；UNK=未知；ASKU=拒绝回答');
  });
});
