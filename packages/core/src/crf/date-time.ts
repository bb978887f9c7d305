/**
 * Calendar arithmetic on wall-clock values. Stored dates are wall-clock text ("2024-03-01",
 * "2024-03-01 08:30:00") with no zone, so all arithmetic runs on Date.UTC of their parts and gives
 * the same answer whatever zone the browser or server runs in. Only "now" needs a zone: the
 * study's, China Standard Time unless the context says otherwise.
 */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

export interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether the runtime knows the IANA zone name (Asia/Shanghai, Europe/Berlin, UTC). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of an instant in a zone. */
export function wallClock(instant: Date, timeZone: string = DEFAULT_TIME_ZONE): DateTimeParts {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function formatDateParts(p: Pick<DateTimeParts, 'year' | 'month' | 'day'>): string {
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

export function formatDateTimeParts(p: DateTimeParts): string {
  return `${formatDateParts(p)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

export function todayString(now: Date, timeZone: string = DEFAULT_TIME_ZONE): string {
  return formatDateParts(wallClock(now, timeZone));
}

export function nowString(now: Date, timeZone: string = DEFAULT_TIME_ZONE): string {
  return formatDateTimeParts(wallClock(now, timeZone));
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** A complete date or date-time, or null when the text is not one (partial dates included). */
export function parseDateTime(text: string): DateTimeParts | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  const parts: DateTimeParts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
  if (parts.month < 1 || parts.month > 12 || parts.day < 1 || parts.day > daysInMonth(parts.year, parts.month)) {
    return null;
  }
  if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return null;
  return parts;
}

/** Milliseconds of a wall-clock value on a zone-free time line. */
export function wallMillis(p: DateTimeParts): number {
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** Whole years from one date to another, as a person counts birthdays. */
export function fullYearsBetween(from: DateTimeParts, to: DateTimeParts): number {
  let years = to.year - from.year;
  if (to.month < from.month || (to.month === from.month && to.day < from.day)) years -= 1;
  return years;
}
