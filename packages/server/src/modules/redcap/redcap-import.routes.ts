// content=record with data: the call's side of an import (its parameters, the data as sent, REDCap's answer).
import { readRedcapXml, RedcapXmlError, writeRedcapXml } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { MALFORMED_MSG, inputProblem } from '../../http/input-bounds.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';
import { readCsv, writeCsv } from './redcap-csv.js';
import { answerFormat, FORMATS, type Format } from './redcap-errors.js';
import { choice, flag, text, type Params } from './redcap-params.js';
import { RECORD_ID, type Project, type Row } from './redcap-project.js';
import { DATE_FORMATS, type DateFormat } from './redcap-dates.js';
import { fromEav, importRecords } from './redcap-records-import.js';

/** The rows of `data` in the call's `format` (json by default; REDCap's default is xml, but every client names one). */
function rowsOf(params: Params): Row[] {
  const format = choice(params, 'format', FORMATS, 'json');
  const data = text(params, 'data');
  if (format === 'csv') return readCsv(data);
  if (format === 'xml') {
    try {
      return readRedcapXml(data);
    } catch (err) {
      if (err instanceof RedcapXmlError) throw new ApiRefusal(400, `参数 data：${err.message}`);
      throw err;
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new ApiRefusal(400, '参数 data 不是有效的 JSON');
  }
  if (!Array.isArray(parsed) || parsed.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) {
    throw new ApiRefusal(400, '参数 data 应为记录对象的 JSON 数组');
  }
  return parsed as Row[];
}

/**
 * REDCap's import parameters we do not carry out are refused rather than ignored: records are enrolled on the
 * platform, never numbered by an import; an import is written before its answer, never in the background; CSV
 * data is comma-separated. dateFormat is carried out (redcap-dates.ts).
 */
function checkImportOptions(params: Params): DateFormat {
  if (flag(params, 'forceAutoNumber')) {
    throw new ApiRefusal(400, '不支持 forceAutoNumber：记录（患者）在平台上入组并编号');
  }
  if (flag(params, 'backgroundProcess')) {
    throw new ApiRefusal(400, '不支持 backgroundProcess：导入在应答前完成并写入，不在后台进行');
  }
  const delimiter = text(params, 'csvDelimiter');
  if (delimiter !== '' && delimiter !== ',') {
    throw new ApiRefusal(400, `不支持 csvDelimiter=${delimiter}：CSV 数据以逗号分隔`);
  }
  return choice(params, 'dateFormat', DATE_FORMATS, 'YMD');
}

/** What an import answers: its counts for the operation log, and REDCap's answer. */
export interface ImportAnswer {
  records: number;
  rows: number;
  contentType: string;
  body: string;
}

/** The answer in REDCap's shape for `returnContent`, in `format`. */
function answerBody(format: Format, returnContent: 'count' | 'ids' | 'nothing', count: number, rows: Row[]) {
  if (returnContent === 'nothing') return { contentType: 'text/plain; charset=utf-8', body: '' };
  if (returnContent === 'ids') {
    const ids = [...new Set(rows.map((r) => String(r[RECORD_ID]).trim()))];
    if (format === 'json') return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(ids) };
    const cells = ids.map((id) => ({ id }));
    if (format === 'csv') return { contentType: 'text/csv; charset=utf-8', body: writeCsv(['id'], cells) };
    return { contentType: 'text/xml; charset=utf-8', body: writeRedcapXml('ids', cells) };
  }
  if (format === 'json') return { contentType: 'application/json; charset=utf-8', body: JSON.stringify({ count }) };
  // The count alone, as REDCap writes it (its clients compare the text: PyCap's tests expect "3" and this XML).
  if (format === 'csv') return { contentType: 'text/csv; charset=utf-8', body: String(count) };
  return {
    contentType: 'text/xml; charset=utf-8',
    body: `<?xml version="1.0" encoding="UTF-8" ?><count>${count}</count>`,
  };
}

/**
 * An import, answered as REDCap answers it, in `returnFormat` (else `format`, else xml): the count of records
 * (`{"count": n}`, `n` for csv, `<count>n</count>`), their ids, or nothing (`returnContent=nothing`).
 */
export async function importCall(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  params: Params,
): Promise<ImportAnswer> {
  const dateFormat = checkImportOptions(params);
  const type = choice(params, 'type', ['flat', 'eav'] as const, 'flat');
  const overwrite = choice(params, 'overwriteBehavior', ['normal', 'overwrite'] as const, 'normal');
  const returnContent = choice(params, 'returnContent', ['count', 'ids', 'nothing'] as const, 'count');
  let rows = rowsOf(params);
  if (inputProblem(rows)) throw new ApiRefusal(400, `${MALFORMED_MSG}：参数 data 含有无法保存的字符或嵌套过深`);
  if (type === 'eav') rows = fromEav(project, rows);
  const count = await importRecords(ctx, caller, project, rows, {
    overwrite: overwrite === 'overwrite',
    reason: text(params, 'reason') || null,
    dateFormat,
  });
  return { records: count, rows: rows.length, ...answerBody(answerFormat(params), returnContent, count, rows) };
}
