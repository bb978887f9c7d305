import type { CalendarEventInput, CalendarEventView, CalendarRange, FollowRecord, Page } from '@ecrf/core';
import { http } from './request';

export type CalendarEvent = CalendarEventView;

/** A day range of the calendar (YYYY-MM-DD, inclusive, in the study's zone). */
export type EventRange = CalendarRange;

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

/** A patient's follow-up visit as the calendar shows it (GET /api/business/follow/records, the follow-up module). */
export type CalendarVisit = Pick<
  FollowRecord,
  | 'followRecordId'
  | 'subjectRecordId'
  | 'identificationCode'
  | 'visitName'
  | 'plannedDate'
  | 'windowStart'
  | 'windowEnd'
  | 'state'
  | 'stateName'
  | 'responsibleUserId'
>;

/** Visit states the calendar shows: every one but 已删除 (6). */
const SHOWN_VISIT_STATES = '0,1,2,3,4,5';
/** 待随访 and 已超窗: the top bar's follow dot. */
const WAITING_VISIT_STATES = '1,2';

export const calendarVisitsApi = {
  /** The study's visits planned in a range of days; read quietly (a member without follow-up rights sees none). */
  list: (studyId: number, range: EventRange) =>
    http.get<Page<CalendarVisit>>('/api/business/follow/records', {
      params: { studyId, ...range, state: SHOWN_VISIT_STATES, pageNum: 1, pageSize: 1000 },
      silent: true,
    }),
  /** How many visits 待随访 or 已超窗 the user is responsible for (the list's total). */
  waitingFor: (studyId: number, userId: number) =>
    http
      .get<Page<CalendarVisit>>('/api/business/follow/records', {
        params: { studyId, state: WAITING_VISIT_STATES, responsibleUserId: userId, pageNum: 1, pageSize: 1 },
        silent: true,
      })
      .then((res) => res.data.total),
};
