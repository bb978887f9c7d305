import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import type { CalendarEventView } from '@ecrf/core';
import { eventsByDay, rangeOf, step, visibleDays } from './calendar-range';

const event = (id: number, startTime: string, endTime: string, allDay = false): CalendarEventView => ({
  id,
  studyId: 1,
  title: `e${id}`,
  allDay,
  startTime,
  endTime,
  startDate: allDay ? startTime.slice(0, 10) : null,
  endDate: allDay ? endTime.slice(0, 10) : null,
  subjectId: null,
  note: null,
  remindBefore: null,
  createTime: startTime,
  updateTime: startTime,
});

describe('calendar views', () => {
  it('the month grid is six weeks from the Monday on or before the 1st', () => {
    const days = visibleDays('month', dayjs('2026-11-22'));
    expect(days).toHaveLength(42);
    expect(days[0]).toBe('2026-10-26');
    expect(days[41]).toBe('2026-12-06');
    expect(rangeOf('week', dayjs('2026-11-22'))).toEqual({ startDate: '2026-11-16', endDate: '2026-11-22' });
    expect(rangeOf('day', dayjs('2026-11-22'))).toEqual({ startDate: '2026-11-22', endDate: '2026-11-22' });
    expect(step('month', dayjs('2026-01-31'), 1).format('YYYY-MM-DD')).toBe('2026-02-28');
    expect(step('week', dayjs('2026-11-22'), -1).format('YYYY-MM-DD')).toBe('2026-11-15');
  });

  it('events fall on the days of the study’s zone, all-day ones first', () => {
    const days = ['2026-11-22', '2026-11-23'];
    const byDay = eventsByDay(
      [
        event(1, '2026-11-22T10:00:00.000Z', '2026-11-22T11:00:00.000Z'),
        // 23:00–01:00 in Shanghai: both days.
        event(2, '2026-11-22T15:00:00.000Z', '2026-11-22T17:00:00.000Z'),
        event(3, '2026-11-23', '2026-11-23', true),
      ],
      days,
      'Asia/Shanghai',
    );
    expect(byDay.get('2026-11-22')!.map((e) => e.id)).toEqual([1, 2]);
    expect(byDay.get('2026-11-23')!.map((e) => e.id)).toEqual([3, 2]);
  });
});
