/**
 * Reads an import workbook on a worker thread with exceljs's streaming reader, so a large file neither blocks
 * the app server's event loop nor is held twice in its heap. Pure: bytes in, sheets of plain cells out.
 */
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { ImportCell } from '@ecrf/core';

export interface WorkbookTask {
  data: Uint8Array;
  limits: { rows: number; columns: number; sheets: number };
}

export interface ReadSheet {
  name: string;
  /** Row 1 as text. */
  header: string[];
  /** Data rows with their workbook row numbers; blank rows left out. */
  rows: Array<{ row: number; cells: ImportCell[] }>;
}

export type WorkbookOutcome =
  | { kind: 'read'; sheets: ReadSheet[] }
  | { kind: 'refused'; code: 'import.bad_file' | 'import.too_large'; message: string };

const pad = (n: number) => String(n).padStart(2, '0');

/** A date cell as text: exceljs gives the Excel serial as a UTC instant, so its UTC parts are the cell's. */
function dateText(d: Date): string {
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return time === '00:00:00' ? day : `${day} ${time}`;
}

export function plainCell(value: unknown): ImportCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : dateText(value);
  if (typeof value === 'object') {
    const v = value as { richText?: Array<{ text: string }>; result?: unknown; text?: unknown; error?: unknown };
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
    if ('result' in v) return plainCell(v.result);
    if (typeof v.text === 'string') return v.text;
    if (v.error !== undefined) return String(v.error);
  }
  return String(value as string);
}

interface StreamedRow {
  number: number;
  values: unknown[];
}

export default async function readWorkbook(task: WorkbookTask): Promise<WorkbookOutcome> {
  const sheets: ReadSheet[] = [];
  let total = 0;
  try {
    // exceljs's typings lack the streaming reader's async iteration.
    const reader = new (
      ExcelJS as unknown as {
        stream: { xlsx: { WorkbookReader: new (input: Readable, options: object) => AsyncIterable<unknown> } };
      }
    ).stream.xlsx.WorkbookReader(Readable.from(Buffer.from(task.data)), {
      worksheets: 'emit',
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      styles: 'cache',
      entries: 'emit',
    });
    for await (const entry of reader) {
      const worksheet = entry as AsyncIterable<StreamedRow> & { name: string };
      if (sheets.length >= task.limits.sheets) {
        return {
          kind: 'refused',
          code: 'import.too_large',
          message: `工作表超过${task.limits.sheets}个，请拆分后导入`,
        };
      }
      const sheet: ReadSheet = { name: worksheet.name, header: [], rows: [] };
      sheets.push(sheet);
      for await (const row of worksheet) {
        const values = row.values.slice(1);
        if (values.length > task.limits.columns) {
          return {
            kind: 'refused',
            code: 'import.too_large',
            message: `工作表“${sheet.name}”超过${task.limits.columns}列，请拆分后导入`,
          };
        }
        const cells = Array.from(values, plainCell);
        if (row.number === 1) {
          sheet.header = cells.map((c) => (c === null ? '' : String(c).trim()));
          continue;
        }
        if (cells.every((c) => c === null || (typeof c === 'string' && c.trim() === ''))) continue;
        if (++total > task.limits.rows) {
          return {
            kind: 'refused',
            code: 'import.too_large',
            message: `文件超过${task.limits.rows}行数据，请拆分后导入`,
          };
        }
        sheet.rows.push({ row: row.number, cells });
      }
    }
  } catch {
    return { kind: 'refused', code: 'import.bad_file', message: '文件不是有效的 Excel 工作簿（.xlsx）' };
  }
  return { kind: 'read', sheets };
}
