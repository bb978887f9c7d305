import { eq } from 'drizzle-orm';
import { reminderAt } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { calendarEvents, subjectRecords } from '../../db/schema/index.js';
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
