import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXCEL_SHEET_NAME_MAX, excelSheetNames } from './excel-sheet-names.js';

const titleArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom("'", ' ', '[', ']', ':', '*', '?', '/', '\\', '基', 'a', 'A'), maxLength: 40 }),
);

describe('Excel sheet names', () => {
  it('cleans what Excel refuses, keeps the rest, and numbers names already taken (ignoring case)', () => {
    expect(
      excelSheetNames(["' '基", '基', "基' '", 'AE/SAE: [1]', 'ae/sae: [1]', '数据字典', '', '一'.repeat(40)], {
        reserved: ['数据字典'],
      }),
    ).toEqual(['基', '基(2)', '基(3)', 'AE_SAE_ _1_', 'ae_sae_ _1_(2)', '数据字典(2)', '表单', '一'.repeat(31)]);
    expect(excelSheetNames(['一'.repeat(40), '一'.repeat(35)])).toEqual(['一'.repeat(31), `${'一'.repeat(28)}(2)`]);
    expect(excelSheetNames(["'"], { fallback: (i) => `表单${i + 7}` })).toEqual(['表单7']);
  });

  it('any titles: names Excel accepts, unique ignoring case, apart from the reserved ones, the same each time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(titleArb, { maxLength: 12 }), async (titles) => {
        const names = excelSheetNames(titles, { reserved: ['说明', '数据字典'] });
        expect(names).toHaveLength(titles.length);
        expect(excelSheetNames(titles, { reserved: ['说明', '数据字典'] })).toEqual(names);
        const lower = names.map((n) => n.toLowerCase());
        expect(new Set([...lower, '说明', '数据字典']).size).toBe(names.length + 2);
        for (const name of names) {
          expect(name.length).toBeGreaterThan(0);
          expect(name.length).toBeLessThanOrEqual(EXCEL_SHEET_NAME_MAX);
          expect(name).not.toMatch(/[:\\/?*[\]]|^'|'$/);
        }
        // exceljs applies Excel's rules when a sheet is added and throws on a name Excel refuses.
        const workbook = new ExcelJS.Workbook();
        for (const name of ['说明', '数据字典', ...names]) workbook.addWorksheet(name);
        expect(workbook.worksheets.map((w) => w.name)).toEqual(['说明', '数据字典', ...names]);
      }),
      { numRuns: 200 },
    );
  });
});
