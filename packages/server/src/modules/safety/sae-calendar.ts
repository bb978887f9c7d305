import { and, eq } from 'drizzle-orm';
import { reminderAt } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { calendarEvents, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { todayCount } from '../calendar/calendar.service.js';

/** The reminder before an SAE deadline: two hours, one of the calendar's own choices (CALENDAR_REMIND_CHOICES). */
export const SAE_REMIND_BEFORE_MINUTES = 120;

/** The calendar entry's title, within the calendar's 60 characters. */
export const saeCalendarTitle = (identificationCode: string, kind: 'initial' | 'followup') =>
  `SAE${kind === 'followup' ? '随访' : ''}报告截止：${identificationCode}`.slice(0, 60);

/**
 * An SAE report's clock started: each member holding 安全性报告 who sees the patient's site gets an entry in their
 * own calendar (日历 events are per user) at the deadline, linked to the patient, with a reminder two hours
 * before. It is theirs afterwards like any entry: they may move or delete it; the report's clock is the list's.
 */
export async function addDeadlineEntries(
  ctx: AppContext,
  report: {
    id: number;
    studyId: number;
    subjectRecordId: number;
    deadlineAt: Date | string;
    kind: 'initial' | 'followup';
    version: number;
  },
  identificationCode: string,
  members: { userId: number; access: StudyAccess }[],
) {
  if (members.length === 0) return;
  const [record] = await ctx.db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, report.subjectRecordId));
  const at = new Date(report.deadlineAt);
  const now = ctx.clock();
  await ctx.db.insert(calendarEvents).values(
    members.map(({ userId }) => ({
      studyId: report.studyId,
      ownerId: userId,
      title: saeCalendarTitle(identificationCode, report.kind),
      allDay: false,
      startAt: at,
      endAt: at,
      subjectId: record?.subjectId ?? null,
      note: `SAE报告第${report.version}版须在此时间前提交（24小时时限）。`,
      remindBefore: SAE_REMIND_BEFORE_MINUTES,
      remindAt: reminderAt(at, SAE_REMIND_BEFORE_MINUTES),
      createdAt: now,
      updatedAt: now,
    })),
  );
  // The top bar's calendar dot counts today's entries: a deadline today changes it at once.
  for (const { userId, access } of members) {
    ctx.realtime.toUser(userId, 'counts', { studyId: report.studyId, events: await todayCount(ctx, userId, access) });
  }
}

type ReportClock = {
  studyId: number;
  subjectRecordId: number;
  deadlineAt: Date | string;
  kind: string;
};

/**
 * The entries an earlier announcement made for a report, found by what they were made with: the study, the patient,
 * the title and the deadline instant. An entry its owner has since moved or renamed is theirs and is not matched.
 */
async function entriesOf(ctx: AppContext, report: ReportClock) {
  const [patient] = await ctx.db
    .select({ subjectId: subjects.id, identificationCode: subjects.identificationCode, timeZone: studies.timeZone })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, subjects.studyId))
    .where(eq(subjectRecords.id, report.subjectRecordId));
  if (!patient) return null;
  const where = and(
    eq(calendarEvents.studyId, report.studyId),
    eq(calendarEvents.subjectId, patient.subjectId),
    eq(
      calendarEvents.title,
      saeCalendarTitle(patient.identificationCode, report.kind === 'followup' ? 'followup' : 'initial'),
    ),
    eq(calendarEvents.startAt, new Date(report.deadlineAt)),
  );
  return { where, timeZone: patient.timeZone };
}

async function pushCounts(ctx: AppContext, studyId: number, timeZone: string, owners: number[]) {
  for (const userId of new Set(owners)) {
    ctx.realtime.toUser(userId, 'counts', { studyId, events: await todayCount(ctx, userId, { studyId, timeZone }) });
  }
}

/** The awareness time changed while the report was pending: its calendar entries move with the deadline. */
export async function moveDeadlineEntries(ctx: AppContext, before: ReportClock, after: ReportClock) {
  const found = await entriesOf(ctx, before);
  if (!found) return;
  const at = new Date(after.deadlineAt);
  const moved = await ctx.db
    .update(calendarEvents)
    // A reminder at a new time is due again.
    .set({
      startAt: at,
      endAt: at,
      remindAt: reminderAt(at, SAE_REMIND_BEFORE_MINUTES),
      remindedAt: null,
      updatedAt: ctx.clock(),
    })
    .where(found.where)
    .returning({ ownerId: calendarEvents.ownerId });
  await pushCounts(
    ctx,
    before.studyId,
    found.timeZone,
    moved.map((e) => e.ownerId),
  );
}

/** The report was withdrawn (the event is no longer serious): no deadline is left to keep. */
export async function removeDeadlineEntries(ctx: AppContext, report: ReportClock) {
  const found = await entriesOf(ctx, report);
  if (!found) return;
  const removed = await ctx.db.delete(calendarEvents).where(found.where).returning({ ownerId: calendarEvents.ownerId });
  await pushCounts(
    ctx,
    report.studyId,
    found.timeZone,
    removed.map((e) => e.ownerId),
  );
}
