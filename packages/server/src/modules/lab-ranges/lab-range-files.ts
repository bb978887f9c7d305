import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { LAB_RANGE_COLUMNS, LAB_RANGE_MSG } from '@ecrf/core';
import { AppError } from '../../shared/app-error.js';

/** A data row of an import file by column name, with its row number as the spreadsheet shows it. */
export interface SheetRow {
  row: number;
  cells: Record<string, unknown>;
}

const isXlsx = (name: string, data: Buffer) =>
  name.toLowerCase().endsWith('.xlsx') || data.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));

/** A cell's value as the row reader wants it: a date stays a Date, a formula its result, rich text its text. */
function cellValue(v: ExcelJS.CellValue): unknown {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v;
  if (typeof v === 'object') {
    if ('result' in v) return cellValue(v.result as ExcelJS.CellValue);
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v) return String(v.text);
    return '';
  }
  return v;
}

/** The first sheet's (or a CSV's) rows under its header row; the header names the columns, in any order. */
export async function rowsOfUpload(name: string, data: Buffer): Promise<SheetRow[]> {
  let table: unknown[][];
  try {
    if (isXlsx(name, data)) {
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(data as unknown as ArrayBuffer);
      const sheet = book.worksheets[0];
      table = [];
      sheet?.eachRow({ includeEmpty: true }, (row, n) => {
        const values = row.values as ExcelJS.CellValue[];
        table[n - 1] = values.slice(1).map(cellValue);
      });
      for (let i = 0; i < table.length; i++) table[i] ??= [];
    } else {
      const text = data.toString('utf8').replace(/^\uFEFF/, '');
      table = Papa.parse<string[]>(text, { skipEmptyLines: false }).data;
    }
  } catch {
    throw AppError.badRequest('lab_range.bad_file', LAB_RANGE_MSG.badFile);
  }
  const header = (table[0] ?? []).map((h) => String(h ?? '').trim());
  const missing = LAB_RANGE_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw AppError.badRequest('lab_range.bad_file', `${LAB_RANGE_MSG.badFile}：缺少列 ${missing.join('、')}`);
  }
  const rows: SheetRow[] = [];
  table.slice(1).forEach((values, i) => {
    const cells: Record<string, unknown> = {};
    header.forEach((h, c) => {
      if (h) cells[h] = values[c] ?? '';
    });
    rows.push({ row: i + 2, cells });
  });
  return rows;
}

/** The import template: the header and one example row, with the columns' rules in a second sheet. */
export async function templateWorkbook(siteNames: readonly string[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('参考范围');
  sheet.addRow([...LAB_RANGE_COLUMNS]);
  sheet.addRow([siteNames[0] ?? '分中心名称', 'WBC', '白细胞计数', '10^9/L', '', 18, '', 3.5, 9.5, '2024-01-01']);
  sheet.columns.forEach((c) => (c.width = 14));
  const notes = book.addWorksheet('填写说明');
  for (const line of [
    ['分中心', `分中心名称（${siteNames.join('、') || '您有权限的分中心'}）`],
    ['项目代码', '与CRF题目对应的检验项目代码，如 WBC、HGB、ALT'],
    ['性别', '男、女，或留空表示不限性别'],
    ['年龄下限/年龄上限', '单位为岁，含下限、不含上限；留空表示不限'],
    ['下限/上限', '至少填写一个'],
    ['生效日期', 'yyyy-MM-dd；按样本日期选用该日期及之前最近生效的范围'],
  ]) {
    notes.addRow(line);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}
