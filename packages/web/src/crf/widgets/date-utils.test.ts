import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { moveCalendarCursor, type CalendarPicker } from './date-utils';

describe('moveCalendarCursor', () => {
  const cases: Array<[CalendarPicker, string, string, boolean, string | null]> = [
    ['date', '2024-01-31 08:30', 'ArrowRight', false, '2024-02-01 08:30'],
    ['date', '2024-03-01 08:30', 'ArrowLeft', false, '2024-02-29 08:30'],
    ['date', '2024-06-10 00:00', 'ArrowUp', false, '2024-06-03 00:00'],
    ['date', '2024-06-10 00:00', 'ArrowDown', false, '2024-06-17 00:00'],
    ['date', '2024-01-31 00:00', 'PageDown', false, '2024-02-29 00:00'],
    ['date', '2024-06-10 00:00', 'PageUp', true, '2023-06-10 00:00'],
    ['date', '2024-02-10 00:00', 'Home', false, '2024-02-01 00:00'],
    ['date', '2024-02-10 00:00', 'End', false, '2024-02-29 00:00'],
    ['month', '2024-06-01 00:00', 'ArrowDown', false, '2024-09-01 00:00'],
    ['month', '2024-06-01 00:00', 'PageDown', false, '2025-06-01 00:00'],
    ['year', '2024-01-01 00:00', 'ArrowUp', false, '2021-01-01 00:00'],
    ['year', '2024-01-01 00:00', 'PageUp', false, '2014-01-01 00:00'],
    ['year', '2024-01-01 00:00', 'Home', false, null],
    ['date', '2024-06-10 00:00', 'a', false, null],
  ];
  it.each(cases)('%s picker: %s with %s (shift %s) goes to %s', (picker, from, key, shift, to) => {
    const next = moveCalendarCursor(dayjs(from), key, shift, picker);
    expect(next ? next.format('YYYY-MM-DD HH:mm') : null).toBe(to);
  });
});
