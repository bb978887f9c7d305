// An import's dateFormat: REDCap's MDY and DMY dates (`MM/DD/YYYY`, `DD/MM/YYYY`) read into the stored YYYY-MM-DD.
import { daysInMonth } from '@ecrf/core';

export const DATE_FORMATS = ['YMD', 'MDY', 'DMY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

const SHAPES: Record<Exclude<DateFormat, 'YMD'>, string> = { MDY: 'MM/DD/YYYY', DMY: 'DD/MM/YYYY' };

/**
 * A date or date-time as sent, in the stored form, as REDCap reads it: with MDY or DMY a value with slashes is
 * month-first or day-first (then its time, after a space or T, as it is); any other value is read as YYYY-MM-DD
 * (the engine judges it). A slashed date that is no day, or a two-digit year (which REDCap guesses a century for),
 * is refused with the reason.
 */
export function readImportDate(text: string, format: DateFormat): { value: string } | { problem: string } {
  if (format === 'YMD' || !text.includes('/')) return { value: text };
  const [date = '', time] = text.trim().replace('T', ' ').split(/\s+/, 2);
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(date);
  if (!m) return { problem: `日期应为 ${SHAPES[format]}（dateFormat=${format}）或 YYYY-MM-DD` };
  if (m[3]!.length !== 4) return { problem: `年份应为四位（${SHAPES[format]}）` };
  const [first, second, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [month, day] = format === 'MDY' ? [first, second] : [second, first];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { problem: `不是有效的日期（${SHAPES[format]}）` };
  }
  const iso = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { value: time ? `${iso} ${time}` : iso };
}
