import type { Dayjs } from 'dayjs';
import { eventDays, type CalendarEventView } from '@ecrf/core';

export type CalendarView = 'month' | 'week' | 'day';

const DAY = 'YYYY-MM-DD';

/** Monday first, as calendars are read in China. */
export function weekStart(day: Dayjs): Dayjs {
  return day.subtract((day.day() + 6) % 7, 'day').startOf('day');
}

/** The days a view shows around a focused day: the month grid's six weeks, the week, or the day. */
export function visibleDays(view: CalendarView, focus: Dayjs): string[] {
  const first =
    view === 'month' ? weekStart(focus.startOf('month')) : view === 'week' ? weekStart(focus) : focus.startOf('day');
  const count = view === 'month' ? 42 : view === 'week' ? 7 : 1;
  return Array.from({ length: count }, (_, i) => first.add(i, 'day').format(DAY));
}

/** The range the list call asks for. */
export function rangeOf(view: CalendarView, focus: Dayjs): { startDate: string; endDate: string } {
  const days = visibleDays(view, focus);
  return { startDate: days[0]!, endDate: days[days.length - 1]! };
}

/** Where the focus moves with 上一页 / 下一页. */
export function step(view: CalendarView, focus: Dayjs, by: 1 | -1): Dayjs {
  return focus.add(by, view);
}

/** The events of each day (YYYY-MM-DD in the study's zone), all-day ones first, then by start. */
export function eventsByDay(
  events: readonly CalendarEventView[],
  days: readonly string[],
  timeZone: string,
): Map<string, CalendarEventView[]> {
  const byDay = new Map<string, CalendarEventView[]>(days.map((d) => [d, []]));
  for (const event of events) {
    const { first, last } = eventDays(event, timeZone);
    for (const day of days) {
      if (day >= first && day <= last) byDay.get(day)!.push(event);
    }
  }
  for (const list of byDay.values()) {
    list.sort((a, b) => Number(b.allDay) - Number(a.allDay) || a.startTime.localeCompare(b.startTime) || a.id - b.id);
  }
  return byDay;
}
