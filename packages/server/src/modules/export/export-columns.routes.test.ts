import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportFile,
  seedExportFixture,
  SPECIFY_TEXT,
  STORED,
  STORED_NAMES,
  type ExportFixture,
} from '../../test/export-fixture.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * What every tabular format carries beside the values themselves, through the export route: the text typed beside
 * an option (其他（请注明）) as a column of its own, uploads by their files' names (never their storage keys), and
 * Excel's two header rows and real dates.
 */
let t: TestApp;
let fixture: ExportFixture;

beforeAll(async () => {
  t = await createTestApp();
  fixture = await seedExportFixture(t);
});
afterAll(() => t.close());

const csv = (file: Buffer) =>
  Papa.parse<Record<string, string>>(file.toString('utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  });

const noStorageKeys = (text: string) => {
  expect(text).not.toContain(STORED.report);
  expect(text).not.toContain(STORED.xray);
};

describe('the 其他（请注明） text, uploads and dates in the tabular formats', () => {
  it('CSV wide: <item>_addition right after its item’s option columns; an upload by its file’s name', async () => {
    for (const labels of [false, true]) {
      const file = await exportFile(t, fixture, { format: 'csvWide', labels });
      noStorageKeys(file.toString('utf8'));
      const { data, meta, errors } = csv(file);
      expect(errors).toEqual([]);
      const fields = meta.fields!;
      expect(fields.indexOf('comorbid_addition')).toBe(fields.indexOf('comorbid___other') + 1);
      const a = data.filter((r) => r.subject_code === fixture.codes.A);
      expect(a.find((r) => r.comorbid_addition)!.comorbid_addition).toBe(SPECIFY_TEXT);
      expect(a.find((r) => r.comorbid___other)!.comorbid___other).toBe(labels ? '已选' : '1');
      // The choice cell is the label or code alone: the text is not folded into it.
      expect(a.find((r) => r.ethnic)!.ethnic).toBe(labels ? '汉族' : 'han');
      expect(a.find((r) => r.lab_report)!.lab_report).toBe(STORED_NAMES.report);
      expect(a.find((r) => r.xray)!.xray).toBe(`${STORED_NAMES.xray}（正位）`);
      const b = data.filter((r) => r.subject_code === fixture.codes.B);
      expect(b.every((r) => r.comorbid_addition === '')).toBe(true);
    }
  });

  it('CSV long: a row of item <item>_addition with its title; uploads by name; list-group rows', async () => {
    const file = await exportFile(t, fixture, { format: 'csvLong' });
    noStorageKeys(file.toString('utf8'));
    const rows = csv(file).data.filter((r) => r.subject_code === fixture.codes.A);
    const specify = rows.find((r) => r.item === 'comorbid_addition')!;
    expect(specify).toMatchObject({ value: SPECIFY_TEXT, item_title: '合并症（请注明）' });
    expect(rows.find((r) => r.item === 'lab_report')!.value).toBe(STORED_NAMES.report);
    expect(rows.find((r) => r.item === 'other_labs.lab_item')).toMatchObject({ row: '1', value: 'CRP' });
  });

  it('Excel: titles then variable names, both frozen; dates and date-times as Excel dates; the addition column and the dictionary', async () => {
    const file = await exportFile(t, fixture, { format: 'excel' });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(file as unknown as ArrayBuffer);
    const demographics = wb.getWorksheet('人口学资料')!;
    const titles = (demographics.getRow(1).values as unknown[]).slice(1).map(String);
    const names = (demographics.getRow(2).values as unknown[]).slice(1).map(String);
    expect(titles.filter((title) => title === '性别')).toHaveLength(2);
    expect(names).toEqual(expect.arrayContaining(['subject_code', 'gender', 'sex', 'comorbid_addition']));
    expect(new Set(names).size).toBe(names.length);
    expect(titles[names.indexOf('comorbid_addition')]).toBe('合并症（请注明）');
    expect(demographics.views[0]).toMatchObject({ state: 'frozen', ySplit: 2 });
    const rowOf = (sheet: ExcelJS.Worksheet, code: string) => {
      let found: ExcelJS.Row | undefined;
      sheet.eachRow((row, n) => {
        if (n > 2 && row.getCell(1).value === code) found = row;
      });
      return found!;
    };
    const cell = (sheet: ExcelJS.Worksheet, code: string, name: string) => {
      const header = (sheet.getRow(2).values as unknown[]).slice(1).map(String);
      return rowOf(sheet, code).getCell(header.indexOf(name) + 1);
    };
    expect(cell(demographics, fixture.codes.A, 'comorbid_addition').value).toBe(SPECIFY_TEXT);
    const vitals = wb.getWorksheet('生命体征')!;
    const measured = cell(vitals, fixture.codes.A, 'vs_at');
    expect(measured.value).toEqual(new Date(Date.UTC(2026, 0, 10, 8, 30, 0)));
    expect(measured.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    const drawn = cell(wb.getWorksheet('实验室检查')!, fixture.codes.A, 'lab_date');
    expect(drawn.value).toEqual(new Date(Date.UTC(2026, 0, 10)));
    expect(drawn.numFmt).toBe('yyyy-mm-dd');
    expect(cell(vitals, fixture.codes.A, 'enrolled').value).toBeInstanceOf(Date);
    expect(cell(wb.getWorksheet('实验室检查')!, fixture.codes.A, 'lab_report').value).toBe(STORED_NAMES.report);
    // A partial date stays text: Excel has no date for 2026-03 without a day.
    expect(cell(wb.getWorksheet('术后随访')!, fixture.codes.A, 'reop_date').value).toBe('2026-03');
    const dictionary = wb.getWorksheet('数据字典')!;
    const variables: unknown[] = [];
    dictionary.eachRow((row) => variables.push(row.getCell(2).value));
    expect(variables).toContain('comorbid_addition');
    let text = '';
    wb.eachSheet((sheet) => sheet.eachRow((row) => (text += JSON.stringify(row.values))));
    noStorageKeys(text);
  });
});
