import type { ItemTypeDefinition } from './definition.js';
import type { CrfNode } from '../crf-definition.schema.js';
import { CRF_MSG } from '../crf-messages.js';
import { nowString } from '../date-time.js';
import {
  dateDirectionError,
  dateFormatOf,
  isValidTime,
  nowForFormat,
  parsePartialDate,
  timeFormatOf,
} from '../partial-date.js';
import { writeText } from '../value-shapes.js';

/** A Chinese spreadsheet's 2026/1/5 or 2026.1.5 as 2026-01-05; a time part kept; other shapes left to the engine. */
function isoDate(text: string): string {
  const m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(.*)$/.exec(text);
  return m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}${m[4]}` : text;
}

function dateCell(text: string, node: CrfNode): string {
  const iso = isoDate(text);
  const format = dateFormatOf(node);
  // A date cell read from Excel carries a time of 00:00:00 the form's format may not have.
  if (/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(iso) && iso.length > format.length) {
    const cut = iso.slice(0, format.length);
    if (/^[0: ]*$/.test(iso.slice(format.length)) || format.length > 10) return cut;
  }
  return iso;
}

/** A date in the item's format, parts unknown (UK) only where it allows, not in a direction the item forbids. */
function validateDate(value: unknown, node: CrfNode, today: string): string | null {
  const parsed = parsePartialDate(String(value), dateFormatOf(node), node.type !== 'datetime');
  if (!parsed) return CRF_MSG.dateInvalid;
  const direction = dateDirectionError(parsed, node.option.showStyle, today);
  if (direction === 'future') return CRF_MSG.dateInFuture;
  if (direction === 'past') return CRF_MSG.dateInPast;
  return null;
}

/** Formats REDCap has a date or date-time validation for (date_ymd, datetime_ymd, datetime_seconds_ymd). */
const REDCAP_DATE_FORMATS: ReadonlySet<string> = new Set(['yyyy-MM-dd', 'yyyy-MM-dd HH:mm', 'yyyy-MM-dd HH:mm:ss']);

/**
 * REDCap dates are whole dates: a date that may be partly unknown (下拉日期), or of a format REDCap has no
 * validation for, is a text field there, so that its values (2020-05, 2020-UK-UK) import as they are.
 */
function redcapDateWarning(node: CrfNode): string | null {
  const format = dateFormatOf(node);
  if (node.type !== 'partialDate' && REDCAP_DATE_FORMATS.has(format)) return null;
  return `REDCap 的日期不能部分未知（UK）${node.type === 'partialDate' ? '' : `，也没有格式 ${format} 的日期`}：导出为文本字段（字段注释写明格式），REDCap 不按日期校验`;
}

/**
 * ODM's type for a date item, by its format: a time of day makes it a datetime, a format without the day a
 * partialDate (year, or year and month). A 下拉日期 may leave any part unknown (UK): ODM's incomplete types.
 */
function odmDateType(node: CrfNode): string {
  const format = dateFormatOf(node);
  const time = format.length > 10;
  if (node.type === 'partialDate') return time ? 'incompleteDatetime' : 'incompleteDate';
  return time ? 'datetime' : format.length === 10 ? 'date' : 'partialDate';
}

const dated = (type: 'date' | 'datetime' | 'partialDate', label: string): ItemTypeDefinition => ({
  type,
  label,
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: false,
  validate: (value, node, { today }) => validateDate(value, node, today),
  now: (node, now, timeZone) => nowForFormat(dateFormatOf(node), now, timeZone),
  hasUnit: false,
  searchKind: () => 'date',
  exportKind: () => type,
  importCell: dateCell,
  odmDataType: odmDateType,
  redcap:
    type === 'datetime'
      ? { shape: 'datetime', warning: redcapDateWarning }
      : { shape: 'date', warning: redcapDateWarning },
});

export const date = dated('date', '日期');
export const datetime = dated('datetime', '日期时间');
export const partialDate = dated('partialDate', '下拉日期');

export const time: ItemTypeDefinition = {
  type: 'time',
  label: '时间',
  role: 'value',
  normalize: (raw) => writeText(raw),
  bounded: false,
  validate: (value, node) => (isValidTime(String(value), timeFormatOf(node)) ? null : CRF_MSG.timeInvalid),
  now: (node, now, timeZone) => nowString(now, timeZone).slice(11, 11 + timeFormatOf(node).length),
  hasUnit: false,
  searchKind: () => 'text',
  exportKind: () => 'text',
  odmDataType: () => 'time',
  redcap: { shape: 'time' },
};
