import { z } from 'zod';
import { rowIdSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';
import { todayString, wallClock, wallMillis } from './crf/date-time.js';

/**
 * The calendar (日历, platform §1, §2): each user's own events within a study, with an optional reminder.
 * Events are private to their owner: no one else reads them, whatever their role.
 */

export const CALENDAR_TITLE_MAX = 60;
export const CALENDAR_NOTE_MAX = 500;
/** A reminder at most a week before the event. */
export const CALENDAR_REMIND_MAX_MINUTES = 7 * 24 * 60;
/** The reminder choices the page offers (minutes before the start). */
export const CALENDAR_REMIND_CHOICES = [0, 5, 15, 30, 60, 120, 1440] as const;
/** A list asks for at most this many days at a time (a month view with its leading and trailing weeks fits). */
export const CALENDAR_RANGE_MAX_DAYS = 62;

const dateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, '日期格式应为YYYY-MM-DD');
const instant = z.string().datetime({ offset: true, message: '时间格式不正确' });

/**
 * An event as created or changed. A timed event has `startTime`/`endTime` as instants with an offset; an
 * all-day event has `startDate`/`endDate` (inclusive), read as days in the study's time zone.
 */
export const calendarEventInput = z
  .object({
    title: z.string().trim().min(1, '请输入标题').max(CALENDAR_TITLE_MAX, `标题不能超过${CALENDAR_TITLE_MAX}个字符`),
    allDay: z.boolean().default(false),
    startTime: instant.optional(),
    endTime: instant.optional(),
    startDate: dateOnly.optional(),
    endDate: dateOnly.optional(),
    subjectId: rowIdSchema.nullable().optional(),
    note: z.string().max(CALENDAR_NOTE_MAX, `备注不能超过${CALENDAR_NOTE_MAX}个字符`).nullable().optional(),
    /** Minutes before the start; null or absent: no reminder. */
    remindBefore: z.number().int().min(0).max(CALENDAR_REMIND_MAX_MINUTES).nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.allDay) {
      if (!v.startDate) ctx.addIssue({ code: 'custom', path: ['startDate'], message: '请选择开始日期' });
      if (v.startDate && v.endDate && v.endDate < v.startDate) {
        ctx.addIssue({ code: 'custom', path: ['endDate'], message: '结束日期不能早于开始日期' });
      }
    } else {
      if (!v.startTime) ctx.addIssue({ code: 'custom', path: ['startTime'], message: '请选择开始时间' });
      if (!v.endTime) ctx.addIssue({ code: 'custom', path: ['endTime'], message: '请选择结束时间' });
      if (v.startTime && v.endTime && Date.parse(v.endTime) < Date.parse(v.startTime)) {
        ctx.addIssue({ code: 'custom', path: ['endTime'], message: '结束时间不能早于开始时间' });
      }
    }
  });
export type CalendarEventInput = z.infer<typeof calendarEventInput>;

/**
 * The patient an event is about (while the patient is in the study): the code, and the name masked unless the
 * caller may see identifiers; `subjectRecordId` opens the casebook.
 */
export const calendarEventSubjectSchema = z.strictObject({
  subjectId: z.number(),
  subjectRecordId: z.number(),
  identificationCode: z.string(),
  subjectName: z.string(),
});
export type CalendarEventSubject = z.infer<typeof calendarEventSubjectSchema>;

/** An event as the API answers it. `startTime`/`endTime` are instants (ISO 8601, UTC); an all-day event also has its dates. */
export const calendarEventViewSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  title: z.string(),
  allDay: z.boolean(),
  startTime: z.string(),
  /** Exclusive end: for an all-day event the start of the day after `endDate`. */
  endTime: z.string(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  subjectId: z.number().nullable(),
  subject: calendarEventSubjectSchema.nullable().optional(),
  note: z.string().nullable(),
  remindBefore: z.number().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type CalendarEventView = z.infer<typeof calendarEventViewSchema>;

// ---- The HTTP contract of GET/POST/PUT/DELETE /api/business/events (the caller's own events in a study) ----

/** The events of a range of days (YYYY-MM-DD, inclusive, in the study's zone), paged. */
export const calendarEventListQuerySchema = studyIdQuerySchema.extend({
  startDate: dateOnly.optional(),
  endDate: dateOnly.optional(),
  ...pagingQueryFields,
});
/** A day range of the calendar (YYYY-MM-DD, inclusive, in the study's zone). */
export type CalendarRange = Required<Pick<z.output<typeof calendarEventListQuerySchema>, 'startDate' | 'endDate'>>;

export const calendarEventBodySchema = z.intersection(z.object({ studyId: rowIdSchema }), calendarEventInput);

/** The top bar's dot: how many events today. */
export const calendarTodaySchema = z.strictObject({ today: z.number() });

/** When the reminder of an event falls: its start less the minutes before, or null without a reminder. */
export function reminderAt(start: Date, remindBefore: number | null | undefined): Date | null {
  if (remindBefore === null || remindBefore === undefined) return null;
  return new Date(start.getTime() - remindBefore * 60_000);
}

/**
 * The instant at which a zone's wall clock reads `date` `time` (YYYY-MM-DD, HH:mm). In a daylight-saving gap the
 * time that does not exist is read as the instant just after the gap; in an overlap, the earlier of the two.
 */
export function instantOfWallClock(date: string, time: string, timeZone: string): Date {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const target = Date.UTC(y, mo - 1, d, h, mi, 0);
  const offsetAt = (at: number) => wallMillis(wallClock(new Date(at), timeZone)) - at;
  let at = target - offsetAt(target);
  // A second pass settles instants near an offset change.
  at = target - offsetAt(at);
  return new Date(at);
}

/** The days (YYYY-MM-DD, in the zone) an event covers: an all-day event its dates; a timed one the days it touches. */
export function eventDays(
  event: Pick<CalendarEventView, 'allDay' | 'startTime' | 'endTime' | 'startDate' | 'endDate'>,
  timeZone: string,
): { first: string; last: string } {
  if (event.allDay && event.startDate) return { first: event.startDate, last: event.endDate ?? event.startDate };
  const start = Date.parse(event.startTime);
  // The end is exclusive: an event ending at midnight does not touch the next day.
  const end = Math.max(start, Date.parse(event.endTime) - 1);
  return { first: todayString(new Date(start), timeZone), last: todayString(new Date(end), timeZone) };
}
