import { and, eq, inArray, sql } from 'drizzle-orm';
import { DEFAULT_MESSAGE_RULES, MESSAGE_MSG, templateProblems, type MessageRules } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { messageOptOuts, messageRules, patientMessages, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import type { Db } from '../../db/client.js';

/** A study's rules, or the defaults when it never saved any. */
export async function rulesOf(db: Db, studyId: number): Promise<MessageRules> {
  const [row] = await db.select().from(messageRules).where(eq(messageRules.studyId, studyId));
  if (!row) return { ...DEFAULT_MESSAGE_RULES, templates: {} };
  return {
    enabled: row.enabled,
    channel: row.channel as MessageRules['channel'],
    daysBefore: row.daysBefore,
    remindFirstDay: row.remindFirstDay,
    remindOverdue: row.remindOverdue,
    invitePro: row.invitePro,
    remindAgainDays: row.remindAgainDays,
    quietStart: row.quietStart,
    quietEnd: row.quietEnd,
    templates: row.templates,
  };
}

export const getRules = (ctx: AppContext, access: StudyAccess) => rulesOf(ctx.db, access.studyId);

export async function saveRules(ctx: AppContext, user: CurrentUser, access: StudyAccess, next: MessageRules) {
  for (const template of Object.values(next.templates)) {
    if (template && templateProblems(template).length > 0) {
      throw AppError.badRequest('message.unknown_variable', MESSAGE_MSG.unknownVariable);
    }
  }
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const before = await rulesOf(tx, access.studyId);
    const values = { ...next, updatedBy: user.userId, updatedAt: now };
    await tx
      .insert(messageRules)
      .values({ studyId: access.studyId, ...values })
      .onConflictDoUpdate({ target: messageRules.studyId, set: values });
    await audit(tx, user, now, [
      { studyId: access.studyId, action: 'message.rules', itemName: '患者提醒', oldValue: before, newValue: next },
    ]);
    return next;
  });
}

/** The patient of the study within the caller's sites, or 404. */
async function patientInScope(ctx: AppContext, access: StudyAccess, subjectId: number) {
  const [row] = await ctx.db
    .select({ id: subjects.id, deptId: subjects.deptId, code: subjects.identificationCode })
    .from(subjects)
    .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, access.studyId), sql`${subjects.deletedAt} is null`));
  if (!row || !seesSite(access, row.deptId)) throw AppError.notFound('subject.not_found', '患者不存在');
  return row;
}

export async function optState(db: Db, studyId: number, subjectId: number) {
  const [row] = await db
    .select()
    .from(messageOptOuts)
    .where(and(eq(messageOptOuts.studyId, studyId), eq(messageOptOuts.subjectId, subjectId)));
  return {
    optedOut: !!row,
    source: (row?.source ?? null) as 'patient' | 'staff' | null,
    reason: row?.reason ?? null,
    createTime: row ? row.createdAt.toISOString() : null,
  };
}

export async function staffOptState(ctx: AppContext, access: StudyAccess, subjectId: number) {
  await patientInScope(ctx, access, subjectId);
  return optState(ctx.db, access.studyId, subjectId);
}

/** An opted-out patient's queued messages are not sent: they turn skipped with 已退订. */
async function skipQueued(tx: Db, studyId: number, subjectId: number, now: Date) {
  await tx
    .update(patientMessages)
    .set({ state: 'skipped', error: MESSAGE_MSG.optedOut, updatedAt: now })
    .where(
      and(
        eq(patientMessages.studyId, studyId),
        eq(patientMessages.subjectId, subjectId),
        inArray(patientMessages.state, ['queued']),
      ),
    );
}

/** Records an opt-out (staff on the patient's word, or the patient); audited as the acting person. */
export async function optOut(
  ctx: AppContext,
  actor: CurrentUser,
  studyId: number,
  subject: { id: number; code: string },
  source: 'patient' | 'staff',
  reason: string | null,
) {
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const inserted = await tx
      .insert(messageOptOuts)
      .values({
        studyId,
        subjectId: subject.id,
        source,
        reason,
        createdBy: source === 'staff' ? actor.userId : null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ subjectId: messageOptOuts.subjectId });
    if (inserted.length === 0) {
      if (source === 'patient') return;
      throw AppError.badRequest('message.already_opted_out', MESSAGE_MSG.alreadyOptedOut);
    }
    await skipQueued(tx, studyId, subject.id, now);
    await audit(tx, actor, now, [
      {
        studyId,
        action: 'message.opt_out',
        itemName: subject.code,
        newValue: { subjectId: subject.id, source },
        reason,
      },
    ]);
  });
  return optState(ctx.db, studyId, subject.id);
}

export async function staffOptOut(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
  reason: string,
) {
  const subject = await patientInScope(ctx, access, subjectId);
  return optOut(ctx, user, access.studyId, subject, 'staff', reason);
}

export async function staffOptIn(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
  reason: string,
) {
  const subject = await patientInScope(ctx, access, subjectId);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const gone = await tx
      .delete(messageOptOuts)
      .where(and(eq(messageOptOuts.studyId, access.studyId), eq(messageOptOuts.subjectId, subjectId)))
      .returning();
    if (gone.length === 0) throw AppError.badRequest('message.not_opted_out', MESSAGE_MSG.notOptedOut);
    await audit(tx, user, now, [
      {
        studyId: access.studyId,
        action: 'message.opt_in',
        itemName: subject.code,
        oldValue: { subjectId, source: gone[0]!.source, reason: gone[0]!.reason },
        newValue: { subjectId },
        reason,
      },
    ]);
  });
  return optState(ctx.db, access.studyId, subjectId);
}
