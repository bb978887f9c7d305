import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfNode } from './crf-definition.schema.js';
import { nowString, todayString } from './date-time.js';
import {
  acceptDateInput,
  dateDirectionError,
  dateFormatOf,
  DATE_DISPLAY_FORMAT,
  DATE_FORMATS,
  displayDate,
  isValidPartialDate,
  isValidTime,
  nowForFormat,
  parsePartialDate,
  shouldEmitDate,
  timeFormatOf,
  type DateFormat,
} from './partial-date.js';

const node = (type: CrfNode['type'], option: CrfNode['option'] = {}): CrfNode => ({
  name: 'd',
  title: 'D',
  type,
  option,
  children: [],
});

describe('partial dates (forms §5)', () => {
  it.each<[string, string, DateFormat, boolean]>([
    ['DATE-02: whole date', '2024-02-29', 'yyyy-MM-dd', true],
    ['DATE-02: unknown day', '2024-05-UK', 'yyyy-MM-dd', true],
    ['DATE-02: unknown month and day', '2024-UK-UK', 'yyyy-MM-dd', true],
    ['DATE-02: unknown year', 'UKUK-05-12', 'yyyy-MM-dd', true],
    ['DATE-02: all unknown', 'UKUK-UK-UK', 'yyyy-MM-dd', true],
    ['DATE-02: UK is not a year', 'UK-05-12', 'yyyy-MM-dd', false],
    ['DATE-03: year 1899', '1899-12-31', 'yyyy-MM-dd', false],
    ['DATE-03: year 1900', '1900-01-01', 'yyyy-MM-dd', true],
    ['DATE-03: year 2100', '2100-12-31', 'yyyy-MM-dd', true],
    ['DATE-03: year 2101', '2101-01-01', 'yyyy-MM-dd', false],
    ['DATE-03: month 13', '2024-13-01', 'yyyy-MM-dd', false],
    ['DATE-03: month 0', '2024-00-01', 'yyyy-MM-dd', false],
    ['DATE-03: day 32', '2024-01-32', 'yyyy-MM-dd', false],
    ['DATE-03: day 0', '2024-01-00', 'yyyy-MM-dd', false],
    ['DATE-03: 30 February', '2024-02-30', 'yyyy-MM-dd', false],
    ['DATE-03: 29 February of a common year', '2023-02-29', 'yyyy-MM-dd', false],
    ['DATE-03: 29 February of an unknown year', 'UKUK-02-29', 'yyyy-MM-dd', true],
    ['DATE-03: day 31 of an unknown month', '2024-UK-31', 'yyyy-MM-dd', true],
    ['DATE-04: yyyy', '2024', 'yyyy', true],
    ['DATE-04: yyyy-MM', '2024-06', 'yyyy-MM', true],
    ['DATE-04: yyyy-MM-dd HH', '2024-06-01 23', 'yyyy-MM-dd HH', true],
    ['DATE-04: yyyy-MM-dd HH:mm', '2024-06-01 23:59', 'yyyy-MM-dd HH:mm', true],
    ['DATE-04: yyyy-MM-dd HH:mm:ss', '2024-06-01 23:59:59', 'yyyy-MM-dd HH:mm:ss', true],
    ['DATE-04: hour 24', '2024-06-01 24:00:00', 'yyyy-MM-dd HH:mm:ss', false],
    ['DATE-04: wrong shape for the format', '2024-06-01', 'yyyy-MM', false],
  ])('%s: %s', (_title, text, format, valid) => {
    expect(isValidPartialDate(text, format)).toBe(valid);
  });

  it('DATE-03: an invalid entry reverts to the last valid one', () => {
    expect(acceptDateInput('2024-01-01', '2024-13-01')).toBe('2024-01-01');
    expect(acceptDateInput('2024-01-01', '1899-01-01')).toBe('2024-01-01');
    expect(acceptDateInput('2024-01-01', '2024-02-uk')).toBe('2024-02-UK');
    expect(acceptDateInput('2024-01-01', '')).toBe('');
  });

  it('DATE-05: a value is emitted once it is 10 characters long', () => {
    expect(shouldEmitDate('2024-01-0')).toBe(false);
    expect(shouldEmitDate('2024-01-01')).toBe(true);
  });

  it('DATE-01/DATE-04: the format comes from format, itemType or type', () => {
    expect(DATE_FORMATS).toEqual([
      'yyyy',
      'yyyy-MM',
      'yyyy-MM-dd',
      'yyyy-MM-dd HH',
      'yyyy-MM-dd HH:mm',
      'yyyy-MM-dd HH:mm:ss',
    ]);
    expect(dateFormatOf(node('date'))).toBe('yyyy-MM-dd');
    expect(dateFormatOf(node('date', { itemType: 'datetime' }))).toBe('yyyy-MM-dd HH:mm:ss');
    expect(dateFormatOf(node('datetime'))).toBe('yyyy-MM-dd HH:mm:ss');
    expect(dateFormatOf(node('partialDate', { format: 'yyyy-MM' }))).toBe('yyyy-MM');
  });

  it('DATE-06/DATE-07: pastTime forbids future dates, futureTime forbids past dates', () => {
    const today = '2024-06-15';
    const p = (text: string) => parsePartialDate(text)!;
    expect(dateDirectionError(p('2024-06-16'), 'pastTime', today)).toBe('future');
    expect(dateDirectionError(p('2024-06-15'), 'pastTime', today)).toBeNull();
    expect(dateDirectionError(p('2024-06-UK'), 'pastTime', today)).toBeNull();
    expect(dateDirectionError(p('2024-07-UK'), 'pastTime', today)).toBe('future');
    expect(dateDirectionError(p('2024-06-14'), 'futureTime', today)).toBe('past');
    expect(dateDirectionError(p('2024-06-15'), 'futureTime', today)).toBeNull();
    expect(dateDirectionError(p('2023-UK-UK'), 'futureTime', today)).toBe('past');
    expect(dateDirectionError(p('UKUK-UK-UK'), 'futureTime', today)).toBeNull();
    expect(dateDirectionError(p('2030-01-01'), undefined, today)).toBeNull();
  });

  it('DATE-08: "now" is today or the current date-time in the study zone, whatever the machine zone', () => {
    // 2024-06-15 17:30 UTC is already 16 June in Beijing.
    const instant = new Date(Date.UTC(2024, 5, 15, 17, 30, 5));
    expect(nowForFormat('yyyy-MM-dd', instant)).toBe('2024-06-16');
    expect(nowForFormat('yyyy-MM-dd HH:mm:ss', instant)).toBe('2024-06-16 01:30:05');
    expect(nowForFormat('yyyy-MM-dd HH:mm', instant)).toBe('2024-06-16 01:30');
    expect(nowForFormat('yyyy-MM-dd', instant, 'UTC')).toBe('2024-06-15');
    expect(todayString(instant, 'UTC')).toBe('2024-06-15');
    expect(nowString(new Date(Date.UTC(2024, 0, 1, 16, 0, 0)))).toBe('2024-01-02 00:00:00');
  });

  it('DATE-09: time format HH:mm:ss, or HH:mm when format is Hour', () => {
    expect(timeFormatOf(node('time'))).toBe('HH:mm:ss');
    expect(timeFormatOf(node('time', { format: 'Hour' }))).toBe('HH:mm');
    expect(isValidTime('23:59:59', 'HH:mm:ss')).toBe(true);
    expect(isValidTime('23:59', 'HH:mm:ss')).toBe(false);
    expect(isValidTime('23:59', 'HH:mm')).toBe(true);
    expect(isValidTime('24:00', 'HH:mm')).toBe(false);
  });

  it('DATE-10/DATE-11: display format, and dates containing 1900 show empty', () => {
    expect(DATE_DISPLAY_FORMAT).toBe('YYYY-MM-DD HH:mm:ss');
    expect(displayDate('1900-01-01')).toBe('');
    expect(displayDate('1900-01-01 00:00:00')).toBe('');
    expect(displayDate('2024-01-01')).toBe('2024-01-01');
    expect(displayDate(null)).toBe('');
  });
});

describe('partial dates (properties)', () => {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

  it('DATE-02/DATE-03: a date is valid exactly when every known part is in range', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1800, max: 2200 })),
        fc.option(fc.integer({ min: 0, max: 14 })),
        fc.option(fc.integer({ min: 0, max: 33 })),
        (y, m, d) => {
          const text = `${y === null ? 'UKUK' : pad(y, 4)}-${m === null ? 'UK' : pad(m)}-${d === null ? 'UK' : pad(d)}`;
          const yearOk = y === null || (y >= 1900 && y <= 2100);
          const monthOk = m === null || (m >= 1 && m <= 12);
          const dayOk = d === null || (d >= 1 && d <= (m !== null && monthOk ? daysIn(y ?? 2000, m) : 31));
          expect(isValidPartialDate(text)).toBe(yearOk && monthOk && dayOk);
        },
      ),
    );
  });

  it('DATE-03: accepting input always leaves either the typed text or the last valid value', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (typed) => {
        const out = acceptDateInput('2024-01-01', typed);
        expect(out === '' || out === '2024-01-01' || isValidPartialDate(out)).toBe(true);
      }),
    );
  });

  it('DATE-06/DATE-07: a whole date is never both in the future and in the past', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true }),
        (date) => {
          const text = date.toISOString().slice(0, 10);
          const parsed = parsePartialDate(text)!;
          const future = dateDirectionError(parsed, 'pastTime', '2024-06-15') === 'future';
          const past = dateDirectionError(parsed, 'futureTime', '2024-06-15') === 'past';
          expect(future).toBe(text > '2024-06-15');
          expect(past).toBe(text < '2024-06-15');
        },
      ),
    );
  });
});
