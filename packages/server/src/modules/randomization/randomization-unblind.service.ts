import { and, asc, eq, sql } from 'drizzle-orm';
import type { RandomizationConfig } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  randomizationConfigs,
  randomizationStudies,
  randomizations,
  randomizationUnblindings,
  studies,
  studyPersonnel,
  studyRoles,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { audit } from '../audit/audit.service.js';
import { reauthenticate } from '../auth/password-attempts.service.js';
import {
  configById,
  formatRandomizationNo,
  present,
  RANDOMIZATION_PERMISSIONS,
  stratumLabels,
} from './randomization-shared.js';

// ---------------------------------------------------------------------------------------------------------------
// Unblinding

/** The password typed again, counted with sign-in's failures (a stolen session cannot guess through it). */
async function checkPassword(ctx: AppContext, user: CurrentUser, password: string) {
  await reauthenticate(ctx, user, password, () =>
    AppError.badRequest('randomization.password_wrong', '密码错误，揭盲未完成'),
  );
}

/** Staff to tell at once of an emergency unblinding: those holding the study-manager power to unblind all. */
async function managersOf(db: Db, studyId: number) {
  const rows = await db
    .select({ userId: studyPersonnel.userId })
    .from(studyPersonnel)
    .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(
      and(
        eq(studyPersonnel.studyId, studyId),
        sql`${studyRoles.permissions} @> ${JSON.stringify([RANDOMIZATION_PERMISSIONS.unblindAll])}::jsonb`,
      ),
    );
  return rows.map((r) => r.userId);
}

export interface UnblindInput {
  studyId: number;
  subjectId: number;
  password: string;
  reason: string;
}

export async function emergencyUnblind(ctx: AppContext, user: CurrentUser, input: UnblindInput) {
  await checkPassword(ctx, user, input.password);
  const at = ctx.clock();
  const { studyId, subjectId } = input;
  const result = await ctx.db.transaction(async (tx) => {
    const [state] = await tx
      .select()
      .from(randomizationStudies)
      .where(eq(randomizationStudies.studyId, studyId))
      .for('update');
    const [row] = await tx
      .select()
      .from(randomizations)
      .where(and(eq(randomizations.studyId, studyId), eq(randomizations.subjectId, subjectId)));
    if (!state || !row) throw AppError.notFound('randomization.not_randomized', '该患者尚未随机入组');
    const config = (await configById(tx, studyId, row.configId))!.config as RandomizationConfig;
    if (!config.blinded) throw AppError.badRequest('randomization.open_label', '本研究为非盲法，无需揭盲');
    if (state.unblindedAllAt) throw AppError.conflict('randomization.unblinded_all', '本研究已全部揭盲');
    const [updated] = await tx
      .update(randomizations)
      .set({
        emergencyUnblindedAt: sql`coalesce(${randomizations.emergencyUnblindedAt}, ${at})`,
        emergencyUnblindedBy: sql`coalesce(${randomizations.emergencyUnblindedBy}, ${user.userId})`,
      })
      .where(eq(randomizations.id, row.id))
      .returning();
    const [record] = await tx
      .insert(randomizationUnblindings)
      .values({ studyId, kind: 'emergency', subjectId, reason: input.reason, userId: user.userId, createdAt: at })
      .returning({ id: randomizationUnblindings.id });
    await audit(tx, user, at, [
      {
        studyId,
        subjectRecordId: row.subjectRecordId,
        action: 'randomization.unblind',
        itemName: formatRandomizationNo(row.randomizationNo),
        newValue: { randomizationNo: formatRandomizationNo(row.randomizationNo), kitCode: row.kitCode },
        reason: input.reason,
      },
    ]);
    return { row: updated!, config, unblindingId: record!.id };
  });
  // Told at once, after commit: ids only (realtime pushes never carry clinical values).
  for (const managerId of await managersOf(ctx.db, studyId)) {
    if (managerId === user.userId) continue;
    ctx.realtime.toUser(managerId, 'randomization.unblinded', {
      eventId: result.unblindingId,
      studyId,
      subjectId,
    });
  }
  return {
    ...present(result.row, result.config, true, stratumLabels(result.config, new Map())),
    unblindTime: at,
  };
}

/** Every assignment as its blinded audit row committed to it, in number order. */
async function disclosedAllocations(db: Db, studyId: number) {
  const rows = await db
    .select({
      randomizationNo: randomizations.randomizationNo,
      version: randomizationConfigs.version,
      kitCode: randomizations.kitCode,
      arm: randomizations.arm,
      scores: randomizations.scores,
      chosenBy: randomizations.chosenBy,
    })
    .from(randomizations)
    .innerJoin(randomizationConfigs, eq(randomizationConfigs.id, randomizations.configId))
    .where(eq(randomizations.studyId, studyId))
    .orderBy(asc(randomizations.randomizationNo));
  return rows.map((r) => ({ ...r, randomizationNo: formatRandomizationNo(r.randomizationNo) }));
}

export interface UnblindAllInput {
  studyId: number;
  password: string;
  confirmText: string;
  reason?: string | null | undefined;
}

export async function unblindAll(ctx: AppContext, user: CurrentUser, input: UnblindAllInput) {
  await checkPassword(ctx, user, input.password);
  const [study] = await ctx.db
    .select({ studyName: studies.studyName })
    .from(studies)
    .where(eq(studies.studyId, input.studyId));
  if (!study || input.confirmText.trim() !== study.studyName) {
    throw AppError.badRequest('randomization.confirm_mismatch', '确认文字与项目名称不一致');
  }
  const at = ctx.clock();
  const reason = input.reason?.trim() || '研究结束，全部揭盲';
  return ctx.db.transaction(async (tx) => {
    const [state] = await tx
      .select()
      .from(randomizationStudies)
      .where(eq(randomizationStudies.studyId, input.studyId))
      .for('update');
    if (!state?.currentConfigId) throw AppError.badRequest('randomization.not_configured', '尚未配置随机化');
    if (state.unblindedAllAt) throw AppError.conflict('randomization.unblinded_all', '本研究已全部揭盲');
    await tx
      .update(randomizationStudies)
      .set({ unblindedAllAt: at, unblindedAllBy: user.userId, updatedAt: at })
      .where(eq(randomizationStudies.studyId, input.studyId));
    await tx
      .insert(randomizationUnblindings)
      .values({ studyId: input.studyId, kind: 'all', reason, userId: user.userId, createdAt: at });
    const seeds = await tx
      .select({ version: randomizationConfigs.version, seed: randomizationConfigs.seed })
      .from(randomizationConfigs)
      .where(eq(randomizationConfigs.studyId, input.studyId))
      .orderBy(asc(randomizationConfigs.version));
    const allocations = await disclosedAllocations(tx, input.studyId);
    // Now the seeds and what each blinded row committed to may be disclosed: with them in the trail anyone checks
    // each version's seedSha256 and each assignment's allocationHmac (docs/randomization.md).
    await audit(tx, user, at, [
      { studyId: input.studyId, action: 'randomization.unblind_all', newValue: { seeds, allocations }, reason },
    ]);
    return { unblindTime: at };
  });
}
