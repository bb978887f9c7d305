import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { studyPersonnel, users } from '../../db/schema/index.js';
import { siteOfRecord } from '../../shared/patient-site.js';
import { hasStudyPermission, seesSite } from '../../shared/study-access.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import { permissionsOf } from '../../shared/user-permissions.js';
import { pendingCount, reactToAeSave } from './safety.service.js';

/** The outbox subscriber that starts, moves and withdraws SAE reports' clocks (events in shared/domain-events.ts). */
export const SAE_WATCH = 'safety.sae';

/** Registers the SAE watch: every save of a study's AE log form, after it committed. */
export function subscribeSafety(ctx: AppContext): void {
  ctx.events.subscribe(SAE_WATCH, ['record.saved', 'record.submitted'], async ({ event }) => {
    if (event.type !== 'record.saved' && event.type !== 'record.submitted') return;
    const { created } = await reactToAeSave(ctx, event);
    if (created) await pushNewReport(ctx, created);
  });
}

/**
 * A new SAE report: the study's members holding 安全性报告 who see the patient's site hear of it (a notice and their
 * new pending count). Another site's member hears nothing: the notice would name a patient they may not see.
 */
async function pushNewReport(
  ctx: AppContext,
  report: { id: number; studyId: number; subjectRecordId: number; deadlineAt: Date | string },
) {
  const siteId = (await siteOfRecord(ctx.db, report.subjectRecordId)) ?? null;
  const staff = await ctx.db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .innerJoin(users, eq(users.userId, studyPersonnel.userId))
    .where(and(eq(studyPersonnel.studyId, report.studyId), eq(users.status, 0), isNull(users.deletedAt)));
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
  }
}
