import { and, asc, count, eq, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import {
  CALENDAR_RANGE_MAX_DAYS,
  maskName,
  reminderAt,
  type CalendarEventSubject,
  type CalendarEventInput,
  type CalendarEventView,
  type CalendarReminderPush,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { calendarEvents, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

type EventRow = typeof calendarEvents.$inferSelect;

/**
 * A reminder found due later than this after its time (the servers were down) is still sent while its event
 * has not ended; once the event is over it is marked as handled and not sent: a late "starts in 15 minutes"
 * for a meeting that is over helps no one.
 */
export const REMINDER_LATE_GRACE_MS = 10 * 60_000;

const notFound = () => AppError.notFound('calendar.not_found', '日程不存在');

function view(row: EventRow): CalendarEventView {
  return {
    id: row.id,
    studyId: row.studyId,
    title: row.title,
    allDay: row.allDay,
    startTime: row.startAt.toISOString(),
    endTime: row.endAt.toISOString(),
    startDate: row.startDate,
    endDate: row.endDate,
    subjectId: row.subjectId,
    note: row.note,
    remindBefore: row.remindBefore,
    createTime: row.createdAt.toISOString(),
    updateTime: row.updatedAt.toISOString(),
  };
}

/**
 * Events with their patients (code, and the name masked for a caller without 查看患者身份信息, as in every list),
 * read in one query; a patient since removed from the study, or not at one of the caller's sites (分中心: the
 * patient moved, or the owner's sites changed), is left out, its id too. The event itself stays the owner's.
 */
async function views(ctx: AppContext, access: StudyAccess, rows: EventRow[]): Promise<CalendarEventView[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.subjectId === null ? [] : [r.subjectId])))];
  const found = ids.length
    ? await ctx.db
        .select({
          subjectId: subjects.id,
          subjectRecordId: subjectRecords.id,
          identificationCode: subjects.identificationCode,
          subjectName: subjects.subjectName,
        })
        .from(subjects)
        .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
        .where(
          and(
            inArray(subjects.id, ids),
            eq(subjects.studyId, access.studyId),
            isNull(subjects.deletedAt),
            inCallerSites(access, subjects.deptId),
          ),
        )
    : [];
  const clear = seesIdentifiers(access);
  const byId = new Map<number, CalendarEventSubject>(
    found.map((f) => [f.subjectId, { ...f, subjectName: clear ? f.subjectName : maskName(f.subjectName) }]),
  );
  return rows.map((row) => {
    const subject = row.subjectId === null ? null : (byId.get(row.subjectId) ?? null);
    return { ...view(row), subjectId: subject ? row.subjectId : null, subject };
  });
}

/** The start of a day (YYYY-MM-DD) in a zone, plus `plusDays` days: local midnight, daylight saving included. */
async function dayStart(ctx: AppContext, day: string, timeZone: string, plusDays = 0): Promise<Date> {
  const [row] = await queryRows<{ at: string | Date }>(
    ctx.db,
    sql`select ((${day}::date + ${plusDays}::int)::timestamp at time zone ${timeZone}) as at`,
  );
  return new Date(row!.at);
}

/** Today's date (YYYY-MM-DD) in a zone at the clock's now. */
function todayIn(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** Where an event sits in time, from what the user sent: instants for a timed event, days in the study's zone for an all-day one. */
async function placement(ctx: AppContext, access: StudyAccess, input: CalendarEventInput) {
  if (input.allDay) {
    const startDate = input.startDate!;
    const endDate = input.endDate ?? startDate;
    return {
      allDay: true,
      startDate,
      endDate,
      startAt: await dayStart(ctx, startDate, access.timeZone),
      endAt: await dayStart(ctx, endDate, access.timeZone, 1),
    };
  }
  return {
    allDay: false,
    startDate: null,
    endDate: null,
    startAt: new Date(input.startTime!),
    endAt: new Date(input.endTime!),
  };
}

/** A linked patient must be one of this study's live patients. */
async function checkSubject(ctx: AppContext, studyId: number, subjectId: number | null | undefined) {
  if (subjectId === null || subjectId === undefined) return null;
  const [row] = await ctx.db
    .select({ id: subjects.id })
    .from(subjects)
    .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, studyId), isNull(subjects.deletedAt)));
  if (!row) throw AppError.badRequest('calendar.subject_unknown', '患者不存在');
  return subjectId;
}

async function ownEvent(ctx: AppContext, user: CurrentUser, studyId: number, id: number): Promise<EventRow> {
  const [row] = await ctx.db
    .select()
    .from(calendarEvents)
    .where(
      and(eq(calendarEvents.studyId, studyId), eq(calendarEvents.id, id), eq(calendarEvents.ownerId, user.userId)),
    );
  // Another user's event answers as a missing one: its existence is private too.
  if (!row) throw notFound();
  return row;
}

export interface EventRange {
  /** First day shown (YYYY-MM-DD, study zone), inclusive. */
  startDate?: string;
  /** Last day shown, inclusive. */
  endDate?: string;
}

/** The caller's events in a study, by start, optionally those touching a range of days (paged, platform §9). */
export async function listEvents(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  range: EventRange,
  page: PageRequest,
): Promise<{ list: CalendarEventView[]; total: number }> {
  const conditions = [eq(calendarEvents.studyId, access.studyId), eq(calendarEvents.ownerId, user.userId)];
  if (range.startDate || range.endDate) {
    const first = range.startDate ?? range.endDate!;
    const last = range.endDate ?? range.startDate!;
    if (last < first) throw AppError.badRequest('calendar.bad_range', '结束日期不能早于开始日期');
    const from = await dayStart(ctx, first, access.timeZone);
    const to = await dayStart(ctx, last, access.timeZone, 1);
    if (to.getTime() - from.getTime() > (CALENDAR_RANGE_MAX_DAYS + 1) * 86_400_000) {
      throw AppError.badRequest('calendar.range_too_long', `日期范围不能超过${CALENDAR_RANGE_MAX_DAYS}天`);
    }
    // Touching the range: starts before its end, and ends after its start (or is a moment inside it).
    conditions.push(lt(calendarEvents.startAt, to));
    conditions.push(or(sql`${calendarEvents.endAt} > ${from}`, gte(calendarEvents.startAt, from))!);
  }
  const where = and(...conditions);
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(calendarEvents).where(where),
    ctx.db
      .select()
      .from(calendarEvents)
      .where(where)
      .orderBy(asc(calendarEvents.startAt), asc(calendarEvents.id))
      .$dynamic(),
    page,
  );
  return { list: await views(ctx, access, rows), total };
}

export async function getEvent(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  const [event] = await views(ctx, access, [await ownEvent(ctx, user, access.studyId, id)]);
  return event!;
}

/** How many of the caller's events touch today (study zone): the top bar's calendar dot. */
export async function todayCount(ctx: AppContext, userId: number, access: Pick<StudyAccess, 'studyId' | 'timeZone'>) {
  const today = todayIn(ctx.clock(), access.timeZone);
  const from = await dayStart(ctx, today, access.timeZone);
  const to = await dayStart(ctx, today, access.timeZone, 1);
  const [row] = await ctx.db
    .select({ n: count() })
    .from(calendarEvents)
    .where(
      and(
        eq(calendarEvents.studyId, access.studyId),
        eq(calendarEvents.ownerId, userId),
        lt(calendarEvents.startAt, to),
        or(sql`${calendarEvents.endAt} > ${from}`, gte(calendarEvents.startAt, from)),
      ),
    );
  return Number(row?.n ?? 0);
}

/** The owner's other tabs and the top bar learn the new count at once. */
async function pushCount(ctx: AppContext, userId: number, access: StudyAccess) {
  ctx.realtime.toUser(userId, 'counts', { studyId: access.studyId, events: await todayCount(ctx, userId, access) });
}

export async function createEvent(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: CalendarEventInput) {
  const at = await placement(ctx, access, input);
  const subjectId = await checkSubject(ctx, access.studyId, input.subjectId);
  const remindBefore = input.remindBefore ?? null;
  const now = ctx.clock();
  const [row] = await ctx.db
    .insert(calendarEvents)
    .values({
      studyId: access.studyId,
      ownerId: user.userId,
      title: input.title,
      ...at,
      subjectId,
      note: input.note?.trim() || null,
      remindBefore,
      remindAt: reminderAt(at.startAt, remindBefore),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await pushCount(ctx, user.userId, access);
  const [event] = await views(ctx, access, [row!]);
  return event!;
}

export async function updateEvent(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  input: CalendarEventInput,
) {
  const before = await ownEvent(ctx, user, access.studyId, id);
  const at = await placement(ctx, access, input);
  const subjectId = await checkSubject(ctx, access.studyId, input.subjectId);
  const remindBefore = input.remindBefore ?? null;
  const remindAt = reminderAt(at.startAt, remindBefore);
  // A reminder moved to a new time is due again; one left where it was keeps its sent mark (sent once).
  const remindedAt = remindAt && before.remindAt?.getTime() === remindAt.getTime() ? before.remindedAt : null;
  const [row] = await ctx.db
    .update(calendarEvents)
    .set({
      title: input.title,
      ...at,
      subjectId,
      note: input.note?.trim() || null,
      remindBefore,
      remindAt,
      remindedAt,
      updatedAt: ctx.clock(),
    })
    .where(and(eq(calendarEvents.studyId, access.studyId), eq(calendarEvents.id, id)))
    .returning();
  await pushCount(ctx, user.userId, access);
  const [event] = await views(ctx, access, [row!]);
  return event!;
}

export async function deleteEvent(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  await ownEvent(ctx, user, access.studyId, id);
  await ctx.db.delete(calendarEvents).where(and(eq(calendarEvents.studyId, access.studyId), eq(calendarEvents.id, id)));
  await pushCount(ctx, user.userId, access);
}

/**
 * Sends the reminders that are due, each once: the update that sets `reminded_at` is the claim, so when several
 * app servers tick at the same minute each reminder goes out from exactly one of them. Runs every tick.
 */
export async function sendDueReminders(ctx: AppContext, now: Date): Promise<{ sent: number; stale: number }> {
  const claimed = await ctx.db
    .update(calendarEvents)
    .set({ remindedAt: now })
    .where(and(isNull(calendarEvents.remindedAt), lte(calendarEvents.remindAt, now)))
    .returning({
      id: calendarEvents.id,
      studyId: calendarEvents.studyId,
      ownerId: calendarEvents.ownerId,
      startAt: calendarEvents.startAt,
      endAt: calendarEvents.endAt,
      allDay: calendarEvents.allDay,
      remindAt: calendarEvents.remindAt,
    });
  let sent = 0;
  for (const e of claimed) {
    const timely =
      e.endAt.getTime() >= now.getTime() || now.getTime() - e.remindAt!.getTime() <= REMINDER_LATE_GRACE_MS;
    if (!timely) continue;
    const push: CalendarReminderPush = {
      kind: 'calendar.reminder',
      eventId: e.id,
      studyId: e.studyId,
      startTime: e.startAt.toISOString(),
      allDay: e.allDay,
    };
    ctx.realtime.toUser(e.ownerId, 'notice', push);
    sent += 1;
  }
  return { sent, stale: claimed.length - sent };
}

/** The scheduler's reminder task (jobs/scheduler.ts, every tick on every server). */
export function calendarRemindersTask(ctx: AppContext): ScheduledTask {
  return {
    name: 'calendar.reminders',
    every: 'tick',
    async run(now) {
      const { sent, stale } = await sendDueReminders(ctx, now);
      return sent + stale === 0 ? '' : `${sent} calendar reminders sent, ${stale} past their event not sent`;
    },
  };
}
