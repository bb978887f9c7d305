import { describe, expect, it } from 'vitest';
import { formatDate } from './format-date';

describe('formatDate', () => {
  it('DATE-10: shows dates as YYYY-MM-DD HH:mm:ss by default', () => {
    expect(formatDate('2024-03-05T08:09:10')).toBe('2024-03-05 08:09:10');
    expect(formatDate('2024-03-05 18:00:00')).toBe('2024-03-05 18:00:00');
    expect(formatDate(new Date(2023, 11, 31, 23, 59, 58))).toBe('2023-12-31 23:59:58');
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
});
