import type { CalendarEventInput, CalendarEventView, Page } from '@ecrf/core';
import { http } from './request';

export type CalendarEvent = CalendarEventView;

/** A day range of the calendar (YYYY-MM-DD, inclusive, in the study's zone). */
export interface EventRange {
  startDate: string;
  endDate: string;
}

const BASE = '/api/business/events';

/**
 * The signed-in user's own calendar events in a study (日历). The month view reads its whole range in one
 * page (a month holds far fewer events than the page cap); the list stays paged for other callers (HTTP-08).
 */
export const eventsApi = {
  list: (studyId: number, range: EventRange, paging = { pageNum: 1, pageSize: 500 }) =>
    http.get<Page<CalendarEvent>>(BASE, { params: { studyId, ...range, ...paging } }),
  get: (studyId: number, id: number, silent = false) =>
    http.get<CalendarEvent>(`${BASE}/${id}`, { params: { studyId }, silent }),
  /** The top bar's dot: today's events. Read in the background, so a failure raises no message. */
  count: (studyId: number) => http.get<{ today: number }>(`${BASE}/count`, { params: { studyId }, silent: true }),
  create: (studyId: number, event: CalendarEventInput) => http.post<CalendarEvent>(BASE, { studyId, ...event }),
  update: (studyId: number, id: number, event: CalendarEventInput) =>
    http.put<CalendarEvent>(`${BASE}/${id}`, { studyId, ...event }),
  remove: (studyId: number, id: number) => http.delete<null>(`${BASE}/${id}`, { params: { studyId } }),
};
