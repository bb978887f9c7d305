import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { studyPersonnel, subjectRecords, subjects, users } from '../../db/schema/index.js';
import { hasStudyPermission, seesSite, type StudyAccess } from '../../shared/study-access.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import { permissionsOf } from '../../shared/user-permissions.js';
import { addDeadlineEntries, moveDeadlineEntries, removeDeadlineEntries } from './sae-calendar.js';
import { pendingCount, reactToAeSave } from './safety.service.js';

/** The outbox subscriber that starts, moves and withdraws SAE reports' clocks (events in shared/domain-events.ts). */
export const SAE_WATCH = 'safety.sae';

/** Registers the SAE watch: every save of a study's AE log form, after it committed. */
export function subscribeSafety(ctx: AppContext): void {
  ctx.events.subscribe(SAE_WATCH, ['record.saved', 'record.submitted'], async ({ event }) => {
    if (event.type !== 'record.saved' && event.type !== 'record.submitted') return;
    const { created, moved, withdrawn } = await reactToAeSave(ctx, event);
    if (created) await announceReport(ctx, created);
    if (moved) await moveDeadlineEntries(ctx, moved.before, moved.after);
    if (withdrawn) await removeDeadlineEntries(ctx, withdrawn);
  });
}

/**
 * A new SAE report (a first report, or a follow-up version): the study's members holding 安全性报告 who see the
 * patient's site hear of it (a notice and their new pending count) and find its deadline in their calendar.
 * Another site's member hears nothing: the notice would name a patient they may not see.
 */
export async function announceReport(
  ctx: AppContext,
  report: {
    id: number;
    studyId: number;
    subjectRecordId: number;
    deadlineAt: Date | string;
    kind: string;
    version: number;
  },
) {
  const [patient] = await ctx.db
    .select({ identificationCode: subjects.identificationCode, siteId: subjects.deptId })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(eq(subjectRecords.id, report.subjectRecordId));
  const siteId = patient?.siteId ?? null;
  const staff = await ctx.db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .innerJoin(users, eq(users.userId, studyPersonnel.userId))
    .where(and(eq(studyPersonnel.studyId, report.studyId), eq(users.status, 0), isNull(users.deletedAt)));
  const told: { userId: number; access: StudyAccess }[] = [];
  for (const { userId } of staff) {
    const { permissions } = await permissionsOf(ctx.db, userId);
    const access = await studyAccessOf(ctx, userId, permissions, report.studyId);
    if (!access || !hasStudyPermission(access, 'btn:business.safety') || !seesSite(access, siteId)) continue;
    ctx.realtime.toUser(userId, 'sae', {
      saeReportId: report.id,
      studyId: report.studyId,
      subjectRecordId: report.subjectRecordId,
      deadlineAt: new Date(report.deadlineAt).toISOString(),
    });
    ctx.realtime.toUser(userId, 'counts', { studyId: report.studyId, saes: await pendingCount(ctx, access) });
    told.push({ userId, access });
  }
  await addDeadlineEntries(
    ctx,
    { ...report, kind: report.kind === 'followup' ? 'followup' : 'initial' },
    patient?.identificationCode ?? '',
    told,
  );
}
