import dayjs, { type Dayjs } from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import { isValidPartialDate, type DateFormat } from '@ecrf/core';

dayjs.extend(customParseFormat);

/** core's date formats (yyyy-MM-dd HH:mm) in dayjs notation (YYYY-MM-DD HH:mm). */
export const toDayjsFormat = (format: string) => format.replace('yyyy', 'YYYY').replace('dd', 'DD');

/** A whole date or time in the item's format as dayjs, or null (blank, partial with UK, or invalid). */
export function toDayjs(text: string, format: string): Dayjs | null {
  if (!text || text.includes('UK')) return null;
  const parsed = dayjs(text, toDayjsFormat(format), true);
  return parsed.isValid() ? parsed : null;
}

/**
 * Typed date text is complete once it is as long as the item's format: 10 characters for yyyy-MM-dd
 * as forms §5 says, 4 or 7 for yyyy and yyyy-MM, 19 with seconds. core's shouldEmitDate only knows 10.
 */
export const isDateTextComplete = (text: string, format: DateFormat) => text.length >= format.length;

/**
 * forms §5: a complete entry that is not a valid date reverts to the last valid value. Like core's
 * acceptDateInput, but it honours items that do not allow unknown parts (datetime).
 */
export function acceptDateText(lastValid: string, typed: string, format: DateFormat, allowUnknown: boolean): string {
  if (typed === '') return '';
  const upper = typed.toUpperCase();
  return isValidPartialDate(upper, format, allowUnknown) ? upper : lastValid;
}

export type CalendarPicker = 'year' | 'month' | 'date';

/**
 * Where a key moves the calendar's cursor, as in the WAI-ARIA date picker pattern: arrows by one cell (a day,
 * a month or a year) and by one row (a week, or three cells in the month and year grids), Page Up/Down by a
 * month (with Shift, or in the month grid, by a year; in the year grid by ten), Home/End to the start and end of
 * the month. Null for any other key.
 */
export function moveCalendarCursor(cursor: Dayjs, key: string, shift: boolean, picker: CalendarPicker): Dayjs | null {
  const unit = picker === 'date' ? 'day' : picker;
  const row = picker === 'date' ? 7 : 3;
  const page = (sign: number) =>
    picker === 'year'
      ? cursor.add(10 * sign, 'year')
      : cursor.add(sign, picker === 'month' || shift ? 'year' : 'month');
  switch (key) {
    case 'ArrowLeft':
      return cursor.subtract(1, unit);
    case 'ArrowRight':
      return cursor.add(1, unit);
    case 'ArrowUp':
      return cursor.subtract(row, unit);
    case 'ArrowDown':
      return cursor.add(row, unit);
    case 'PageUp':
      return page(-1);
    case 'PageDown':
      return page(1);
    case 'Home':
      return picker === 'date' ? cursor.date(1) : null;
    case 'End':
      return picker === 'date' ? cursor.date(cursor.daysInMonth()) : null;
    default:
      return null;
  }
}
