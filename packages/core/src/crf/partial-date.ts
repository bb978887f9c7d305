import type { CrfNode } from './crf-definition.schema.js';
import { daysInMonth, nowString, todayString } from './date-time.js';

/** forms §5, §9: unknown parts, year range and the formats a date item may take. */
export const UNKNOWN_YEAR = 'UKUK';
export const UNKNOWN_PART = 'UK';
export const YEAR_MIN = 1900;
export const YEAR_MAX = 2100;
export const DATE_FORMATS = [
  'yyyy',
  'yyyy-MM',
  'yyyy-MM-dd',
  'yyyy-MM-dd HH',
  'yyyy-MM-dd HH:mm',
  'yyyy-MM-dd HH:mm:ss',
] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export const DEFAULT_DATE_FORMAT: DateFormat = 'yyyy-MM-dd';
export const DEFAULT_DATETIME_FORMAT: DateFormat = 'yyyy-MM-dd HH:mm:ss';
/** Display default (forms §9). */
export const DATE_DISPLAY_FORMAT = 'YYYY-MM-DD HH:mm:ss';
/** A value is emitted to the form once the typed text is a whole date (forms §5). */
export const DATE_EMIT_LENGTH = 10;

export interface PartialDate {
  year: number | null;
  month: number | null;
  day: number | null;
  hour: number | null;
  minute: number | null;
  second: number | null;
}

export function isDateFormat(value: string): value is DateFormat {
  return (DATE_FORMATS as readonly string[]).includes(value);
}

/** The format of a date item: its own format, else by itemType or type. */
export function dateFormatOf(node: CrfNode): DateFormat {
  const own = node.option.format;
  if (own && isDateFormat(own)) return own;
  const datetime = node.type === 'datetime' || node.option.itemType === 'datetime';
  return datetime ? DEFAULT_DATETIME_FORMAT : DEFAULT_DATE_FORMAT;
}

const YEAR = `(\\d{4}|${UNKNOWN_YEAR})`;
const PART = `(\\d{2}|${UNKNOWN_PART})`;
const patterns = new Map<string, RegExp>();
function patternFor(format: DateFormat, allowUnknown: boolean): RegExp {
  const key = `${format}|${allowUnknown}`;
  let re = patterns.get(key);
  if (!re) {
    const y = allowUnknown ? YEAR : '(\\d{4})';
    const p = allowUnknown ? PART : '(\\d{2})';
    const pieces = [y, `-${p}`, `-${p}`, ' (\\d{2})', ':(\\d{2})', ':(\\d{2})'];
    const count = DATE_FORMATS.indexOf(format) + 1;
    re = new RegExp(`^${pieces.slice(0, count).join('')}$`);
    patterns.set(key, re);
  }
  return re;
}

const part = (text: string | undefined): number | null =>
  text === undefined || text.startsWith('UK') ? null : Number(text);

/**
 * Reads typed date text in a format. UKUK and UK stand for an unknown year, month or day; known
 * parts must be in range: year 1900–2100, month 1–12, day 1–31 and, where the month is known, no
 * later than its last day (29 for February of an unknown year). Null when the text is not valid.
 */
export function parsePartialDate(
  text: string,
  format: DateFormat = DEFAULT_DATE_FORMAT,
  allowUnknown = true,
): PartialDate | null {
  const m = patternFor(format, allowUnknown).exec(text);
  if (!m) return null;
  const date: PartialDate = {
    year: part(m[1]),
    month: part(m[2]),
    day: part(m[3]),
    hour: part(m[4]),
    minute: part(m[5]),
    second: part(m[6]),
  };
  if (date.year !== null && (date.year < YEAR_MIN || date.year > YEAR_MAX)) return null;
  if (date.month !== null && (date.month < 1 || date.month > 12)) return null;
  if (date.day !== null) {
    if (date.day < 1 || date.day > 31) return null;
    if (date.month !== null && date.day > daysInMonth(date.year ?? 2000, date.month)) return null;
  }
  if (date.hour !== null && date.hour > 23) return null;
  if (date.minute !== null && date.minute > 59) return null;
  if (date.second !== null && date.second > 59) return null;
  return date;
}

export function isValidPartialDate(
  text: string,
  format: DateFormat = DEFAULT_DATE_FORMAT,
  allowUnknown = true,
): boolean {
  return parsePartialDate(text, format, allowUnknown) !== null;
}

/** forms §5: an invalid entry reverts to the last valid value. */
export function acceptDateInput(lastValid: string, typed: string, format: DateFormat = DEFAULT_DATE_FORMAT): string {
  if (typed === '') return '';
  const upper = typed.replace(/uk/gi, 'UK');
  return isValidPartialDate(upper, format) ? upper : lastValid;
}

/** forms §5: the typed text becomes the item's value once it is 10 characters long. */
export function shouldEmitDate(text: string): boolean {
  return text.length >= DATE_EMIT_LENGTH;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The earliest and latest whole dates a partial date may stand for, as yyyy-MM-dd. */
export function partialDateBounds(date: PartialDate): { earliest: string; latest: string } {
  const earliestYear = date.year ?? YEAR_MIN;
  const latestYear = date.year ?? YEAR_MAX;
  const earliest = `${pad(earliestYear, 4)}-${pad(date.month ?? 1)}-${pad(date.day ?? 1)}`;
  const latestMonth = date.month ?? 12;
  const latest = `${pad(latestYear, 4)}-${pad(latestMonth)}-${pad(date.day ?? daysInMonth(latestYear, latestMonth))}`;
  return { earliest, latest };
}

/**
 * pastTime forbids future dates and futureTime past ones (forms §5). A partial date breaks the rule
 * only when every date it could stand for does; today itself is neither past nor future.
 */
export function dateDirectionError(
  date: PartialDate,
  showStyle: string | undefined,
  today: string,
): 'future' | 'past' | null {
  const { earliest, latest } = partialDateBounds(date);
  if (showStyle === 'pastTime' && earliest > today) return 'future';
  if (showStyle === 'futureTime' && latest < today) return 'past';
  return null;
}

/** defaultValue "now": today's date, or the current date-time, cut to the item's format (forms §5). */
export function nowForFormat(format: DateFormat, now: Date, timeZone?: string): string {
  const full = format.includes('HH') ? nowString(now, timeZone) : todayString(now, timeZone);
  return full.slice(0, format.length);
}

/** forms §9: dates containing 1900 show empty (the old system's placeholder for "no date"). */
export function displayDate(value: string | null | undefined): string {
  if (!value || value.includes('1900')) return '';
  return value;
}

/** Time picker format: HH:mm:ss, or HH:mm when the item's format is Hour (forms §5). */
export type TimeFormat = 'HH:mm:ss' | 'HH:mm';
export function timeFormatOf(node: CrfNode): TimeFormat {
  return node.option.format === 'Hour' ? 'HH:mm' : 'HH:mm:ss';
}

export function isValidTime(text: string, format: TimeFormat): boolean {
  const m = (format === 'HH:mm' ? /^(\d{2}):(\d{2})$/ : /^(\d{2}):(\d{2}):(\d{2})$/).exec(text);
  if (!m) return false;
  return Number(m[1]) <= 23 && Number(m[2]) <= 59 && (m[3] === undefined || Number(m[3]) <= 59);
}
