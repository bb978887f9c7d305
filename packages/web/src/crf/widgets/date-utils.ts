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
