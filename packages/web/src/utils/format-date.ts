import dayjs from 'dayjs';
import { DEFAULT_TIME_ZONE, wallClock } from '@ecrf/core';

export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
export const DATE_FORMAT = 'YYYY-MM-DD';

let displayZone = DEFAULT_TIME_ZONE;

/**
 * The zone every instant is shown in: the open study's time zone, else the platform default (Asia/Shanghai).
 * Never the browser's own zone: a monitor in another country and a nurse on the ward must read the same time.
 */
export function setDisplayTimeZone(zone: string | null | undefined): void {
  displayZone = zone || DEFAULT_TIME_ZONE;
}

export function displayTimeZone(): string {
  return displayZone;
}

/** Text that names an instant (ISO 8601 with Z or an offset), as the server sends timestamps. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * An instant as wall-clock text in the display zone. The tokens are filled from the zone's own calendar fields
 * (never through a local Date, which a browser's daylight-saving gap would shift by an hour).
 */
function formatInstant(instant: Date, format: string): string {
  const p = wallClock(instant, displayZone);
  const tokens: Record<string, string> = {
    YYYY: pad(p.year, 4),
    MM: pad(p.month),
    DD: pad(p.day),
    HH: pad(p.hour),
    mm: pad(p.minute),
    ss: pad(p.second),
  };
  return format.replace(/YYYY|MM|DD|HH|mm|ss/g, (token) => tokens[token]!);
}

/**
 * Shows a date in the product's default format. Instants (Date objects, epoch numbers, ISO text with a zone)
 * are shown in the display zone; wall-clock texts such as a form's `2024-06-01 10:00` are shown as written.
 * The legacy data marks "no date" with 1900-01-01, so any value containing 1900 shows empty (platform §9), as
 * do missing or unparseable values.
 */
export function formatDate(
  value: string | number | Date | null | undefined,
  format: string = DATE_TIME_FORMAT,
): string {
  if (value === null || value === undefined || value === '') return '';
  const isInstant = value instanceof Date || typeof value === 'number' || INSTANT.test(value);
  if (!isInstant && String(value).includes('1900')) return '';
  let shown: string;
  if (isInstant) {
    const instant = new Date(value);
    if (Number.isNaN(instant.getTime())) return '';
    shown = formatInstant(instant, format);
  } else {
    const parsed = dayjs(value);
    if (!parsed.isValid()) return '';
    shown = parsed.format(format);
  }
  return shown.includes('1900') ? '' : shown;
}
