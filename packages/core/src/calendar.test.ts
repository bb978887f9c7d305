import { describe, expect, it } from 'vitest';
import { calendarEventInput, eventDays, instantOfWallClock, reminderAt } from './calendar.js';

describe('calendar', () => {
  it.each([
    ['2026-11-22', '18:00', 'Asia/Shanghai', '2026-11-22T10:00:00.000Z'],
    ['2026-01-01', '00:00', 'Asia/Shanghai', '2025-12-31T16:00:00.000Z'],
    ['2026-07-01', '09:30', 'Europe/Berlin', '2026-07-01T07:30:00.000Z'],
    ['2026-12-01', '09:30', 'Europe/Berlin', '2026-12-01T08:30:00.000Z'],
    // The hour that does not exist (spring forward) reads as the instant after the gap.
    ['2026-03-29', '02:30', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    ['2026-11-22', '08:00', 'UTC', '2026-11-22T08:00:00.000Z'],
  ])('the wall clock %s %s in %s is %s', (date, time, zone, iso) => {
    expect(instantOfWallClock(date, time, zone).toISOString()).toBe(iso);
  });

  it('an event covers the days it touches in the zone; an end at midnight does not touch the next day', () => {
    const timed = (startTime: string, endTime: string) =>
      eventDays({ allDay: false, startTime, endTime, startDate: null, endDate: null }, 'Asia/Shanghai');
    expect(timed('2026-11-22T10:00:00Z', '2026-11-22T11:00:00Z')).toEqual({ first: '2026-11-22', last: '2026-11-22' });
    expect(timed('2026-11-22T15:00:00Z', '2026-11-22T17:00:00Z')).toEqual({ first: '2026-11-22', last: '2026-11-23' });
    expect(timed('2026-11-22T10:00:00Z', '2026-11-22T16:00:00Z')).toEqual({ first: '2026-11-22', last: '2026-11-22' });
    expect(timed('2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z')).toEqual({ first: '2026-11-22', last: '2026-11-22' });
    expect(
      eventDays(
        { allDay: true, startTime: '', endTime: '', startDate: '2026-11-24', endDate: '2026-11-25' },
        'Asia/Shanghai',
      ),
    ).toEqual({ first: '2026-11-24', last: '2026-11-25' });
  });

  it('the reminder falls its minutes before the start, or not at all', () => {
    const start = new Date('2026-11-22T10:00:00Z');
    expect(reminderAt(start, 15)?.toISOString()).toBe('2026-11-22T09:45:00.000Z');
    expect(reminderAt(start, 0)?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(reminderAt(start, null)).toBeNull();
  });

  it('an event needs a title and its times in order', () => {
    const base = {
      title: '随访',
      allDay: false,
      startTime: '2026-11-22T10:00:00+08:00',
      endTime: '2026-11-22T11:00:00+08:00',
    };
    expect(calendarEventInput.safeParse(base).success).toBe(true);
    expect(calendarEventInput.safeParse({ ...base, title: '  ' }).success).toBe(false);
    expect(calendarEventInput.safeParse({ ...base, endTime: '2026-11-22T09:00:00+08:00' }).success).toBe(false);
    expect(calendarEventInput.safeParse({ title: 'x', allDay: true, startDate: '2026-11-24' }).success).toBe(true);
    expect(calendarEventInput.safeParse({ title: 'x', allDay: true }).success).toBe(false);
    expect(calendarEventInput.safeParse({ ...base, remindBefore: 7 * 24 * 60 + 1 }).success).toBe(false);
  });
});
