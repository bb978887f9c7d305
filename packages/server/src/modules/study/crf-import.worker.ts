/**
 * Reads an uploaded CRF file on a worker thread, so that parsing and linting a large file never blocks the
 * app server's event loop. Pure: bytes in, forms (as JSON text) and findings out; the caller stores them.
 */
import JSZip from 'jszip';
import {
  csvRowsExceed,
  importExcel,
  importJson,
  importLimitBreach,
  importLimitMessages,
  importOdm,
  importRedcapDictionary,
  type CrfImportLimits,
  type ImportResult,
} from '@ecrf/core/interop';
import { readForm, type ReadForm } from './crf-definition-facts.js';

export type CrfSource = 'json' | 'excel' | 'redcap' | 'odm';

export interface CrfImportTask {
  fileName: string;
  data: Uint8Array;
  limits: CrfImportLimits;
}

export type CrfImportOutcome =
  | { kind: 'read'; source: CrfSource; ok: boolean; issues: ImportResult['issues']; forms: ReadForm[] }
  | { kind: 'refused'; code: 'crf.unknown_format' | 'crf.too_large'; message: string };

const ENCODING_WARNING = '文件不是 UTF-8 编码，已按 GBK/GB18030 读取';

/**
 * A text upload's characters: UTF-8 when the bytes are valid UTF-8, otherwise GB18030 (a superset of
 * GBK), which is what Excel writes for a CSV on a Chinese Windows. Which one was used is reported.
 */
export function decodeUpload(data: Uint8Array): { text: string; encoding: 'utf-8' | 'gb18030' } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(data).replace(/^\uFEFF/, ''), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('gb18030').decode(data), encoding: 'gb18030' };
  }
}

/** Rows of one worksheet's XML, counted while it is inflated, stopping once past `max`. */
function sheetRowsExceed(entry: JSZip.JSZipObject, max: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const stream = entry.nodeStream('nodebuffer');
    let rows = 0;
    let carry = '';
    stream.on('data', (chunk: Buffer) => {
      const text = carry + chunk.toString('latin1');
      rows += text.match(/<row[\s>]/g)?.length ?? 0;
      // A tag is five characters, so the last four can hold no whole one: nothing is counted twice.
      carry = text.slice(-4);
      if (rows > max) {
        stream.pause();
        stream.removeAllListeners('data');
        resolve(true);
      }
    });
    stream.on('end', () => resolve(false));
    stream.on('error', reject);
  });
}

/**
 * Checks a workbook against the caps from its zip directory and a streamed row count, before the workbook is
 * built in memory (a 300,000-row sheet takes over a gigabyte as an ExcelJS workbook; a 2,000-sheet one minutes).
 */
async function workbookBreach(data: Uint8Array, limits: CrfImportLimits): Promise<string | undefined> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(data);
  } catch {
    return undefined; // not a readable workbook: the full reader says why, in its own words
  }
  const sheets = zip.file(/^xl\/worksheets\/[^/]+\.xml$/);
  if (sheets.length > limits.sheets) return importLimitMessages.sheets(limits);
  for (const sheet of sheets) {
    if (await sheetRowsExceed(sheet, limits.rows)) return importLimitMessages.rows('一个工作表', limits);
  }
  return undefined;
}

function withinLimits(source: CrfSource, result: ImportResult, limits: CrfImportLimits): CrfImportOutcome {
  const breach = importLimitBreach(result.definitions, limits);
  if (breach) return { kind: 'refused', code: 'crf.too_large', message: breach };
  // Counting and hashing a large upload takes tens of milliseconds: here, not on the server's event loop.
  const forms = result.ok ? result.definitions.map(readForm) : [];
  return { kind: 'read', source, ok: result.ok, issues: result.issues, forms };
}

/** Reads a file by its content's format, whatever the name claims. */
export default async function readCrfFile({ fileName, data, limits }: CrfImportTask): Promise<CrfImportOutcome> {
  const isZip = data[0] === 0x50 && data[1] === 0x4b;
  if (isZip) {
    const breach = await workbookBreach(data, limits);
    if (breach) return { kind: 'refused', code: 'crf.too_large', message: breach };
    return withinLimits('excel', await importExcel(data), limits);
  }
  const { text, encoding } = decodeUpload(data);
  const withEncoding = (result: ImportResult): ImportResult =>
    encoding === 'utf-8'
      ? result
      : { ...result, issues: [{ severity: 'warning', message: ENCODING_WARNING }, ...result.issues] };
  const start = text.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) {
    return withinLimits('json', withEncoding(importJson(text)), limits);
  }
  if (start.startsWith('<')) return withinLimits('odm', withEncoding(importOdm(text)), limits);
  if (/\.csv$/i.test(fileName) || /^"?(variable|Variable \/ Field Name)/i.test(start)) {
    if (csvRowsExceed(text, limits.rows)) {
      return { kind: 'refused', code: 'crf.too_large', message: importLimitMessages.rows('文件', limits) };
    }
    return withinLimits('redcap', withEncoding(importRedcapDictionary(text)), limits);
  }
  return {
    kind: 'refused',
    code: 'crf.unknown_format',
    message: '不支持的文件格式：请上传 JSON、Excel（.xlsx）、REDCap 数据字典（.csv）或 ODM（.xml）',
  };
}
