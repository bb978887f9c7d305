import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { formatDate, setDisplayTimeZone } from './format-date';

describe('formatDate', () => {
  it('DATE-10: shows dates as YYYY-MM-DD HH:mm:ss by default', () => {
    expect(formatDate('2024-03-05T08:09:10')).toBe('2024-03-05 08:09:10');
    expect(formatDate('2024-03-05 18:00:00')).toBe('2024-03-05 18:00:00');
  });

  it('DATE-10: takes another format when asked', () => {
    expect(formatDate('2024-03-05T08:09:10', 'YYYY-MM-DD')).toBe('2024-03-05');
  });

  it('DATE-11: any value containing 1900 shows empty', () => {
    expect(formatDate('1900-01-01 00:00:00')).toBe('');
    expect(formatDate('1900-01-01T00:00:00')).toBe('');
    expect(formatDate('1900/1/1')).toBe('');
  });

  it('DATE-11: empty and unparseable values show empty', () => {
    expect(formatDate(null)).toBe('');
    expect(formatDate(undefined)).toBe('');
    expect(formatDate('')).toBe('');
    expect(formatDate('not a date')).toBe('');
  });

  describe('one time zone', () => {
    afterEach(() => setDisplayTimeZone(null));

    it('DATE-10: instants from the server show in the study zone (Asia/Shanghai by default), whatever the browser zone', () => {
      expect(formatDate('2023-12-31T16:00:05.000Z')).toBe('2024-01-01 00:00:05');
      expect(formatDate(new Date('2023-12-31T16:00:05Z'))).toBe('2024-01-01 00:00:05');
      expect(formatDate(Date.UTC(2023, 11, 31, 16, 0, 5), 'YYYY-MM-DD')).toBe('2024-01-01');
      expect(formatDate('2024-03-05T08:09:10+08:00')).toBe('2024-03-05 08:09:10');
    });

    it('DATE-10: a study in another zone shows its own wall clock', () => {
      setDisplayTimeZone('Europe/Berlin');
      expect(formatDate('2024-07-01T12:00:00Z')).toBe('2024-07-01 14:00:00');
      setDisplayTimeZone('UTC');
      expect(formatDate('2024-07-01T12:00:00Z', 'HH:mm')).toBe('12:00');
    });

    it('DATE-10: wall-clock texts (form values, birth dates) are never shifted', () => {
      setDisplayTimeZone('America/New_York');
      expect(formatDate('1980-03-05', 'YYYY-MM-DD')).toBe('1980-03-05');
      expect(formatDate('2024-06-01 10:00:00')).toBe('2024-06-01 10:00:00');
    });

    it('DATE-11: an instant of 1900 shows empty too', () => {
      expect(formatDate('1900-01-01T00:00:00Z')).toBe('');
    });
  });
});
