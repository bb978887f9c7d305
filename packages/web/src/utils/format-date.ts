import dayjs from 'dayjs';

export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
export const DATE_FORMAT = 'YYYY-MM-DD';

/**
 * Shows a date in the product's default format. The legacy data marks "no date" with
 * 1900-01-01, so any value containing 1900 shows empty (platform §9), as do missing or
 * unparseable values.
 */
export function formatDate(
  value: string | number | Date | null | undefined,
  format: string = DATE_TIME_FORMAT,
): string {
  if (value === null || value === undefined || value === '') return '';
  const text = value instanceof Date ? value.toISOString() : String(value);
  if (text.includes('1900')) return '';
  const parsed = dayjs(value);
  if (!parsed.isValid()) return '';
  const shown = parsed.format(format);
  return shown.includes('1900') ? '' : shown;
}
