import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { OffsetUnit } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfs, followPlanVisits, followPlans, followRecords, studyPersonnel, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { audit } from '../audit/audit.service.js';
import { pushVisitCounts } from './follow-push.js';
import { liveVisitsOf, scheduleStudy, type PlanVisitRow } from './follow-schedule.service.js';
import { markRecords } from './follow-shared.js';

// Follow-up plans (随访计划): their visits and forms, created, edited and deleted.

export interface PlanVisitInput {
  id?: number | null;
  visitName: string;
  offset: number;
  unit: OffsetUnit;
  windowBefore: number;
  windowAfter: number;
  repeatEvery?: number | null;
  repeatUntil?: number | null;
  responsibleUserId?: number | null;
  crfIds: number[];
}

export interface PlanInput {
  studyId: number;
  planName: string;
  diseaseCode?: string | null;
  remark?: string | null;
  visits: PlanVisitInput[];
}

const visitView = (v: PlanVisitRow) => ({
  visitName: v.visitName,
  offset: v.offset,
  unit: v.unit,
  windowBefore: v.windowBefore,
  windowAfter: v.windowAfter,
  repeatEvery: v.repeatEvery,
  repeatUntil: v.repeatUntil,
  responsibleUserId: v.responsibleUserId,
  crfIds: v.crfIds,
});

/** The plan's forms must be the study's, and its responsible people the study's staff. */
export async function checkPlanInput(db: Db, input: PlanInput) {
  const crfIds = [...new Set(input.visits.flatMap((v) => v.crfIds))];
  if (crfIds.length) {
    const found = await db
      .select({ id: crfs.id })
      .from(crfs)
      .where(and(eq(crfs.studyId, input.studyId), inArray(crfs.id, crfIds)));
    if (found.length !== crfIds.length) throw AppError.badRequest('follow.crf_missing', '随访表单不存在');
  }
  const people = [...new Set(input.visits.flatMap((v) => (v.responsibleUserId ? [v.responsibleUserId] : [])))];
  if (people.length) {
    const found = await db
      .select({ userId: studyPersonnel.userId })
      .from(studyPersonnel)
      .where(and(eq(studyPersonnel.studyId, input.studyId), inArray(studyPersonnel.userId, people)));
    if (found.length !== people.length) throw AppError.badRequest('follow.responsible_missing', '负责人不是本项目人员');
  }
  const names = input.visits.map((v) => v.visitName.trim());
  if (new Set(names).size !== names.length) throw AppError.badRequest('follow.visit_name_taken', '访视名称不能重复');
}

export async function listPlans(ctx: AppContext, studyId: number, page: PageRequest, planName?: string) {
  const where = and(
    eq(followPlans.studyId, studyId),
    isNull(followPlans.deletedAt),
    planName ? sql`${followPlans.planName} ilike ${`%${planName.replace(/[\\%_]/g, '\\$&')}%`}` : undefined,
  );
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(followPlans).where(where),
    ctx.db
      .select({ plan: followPlans, updater: users.name })
      .from(followPlans)
      .leftJoin(users, eq(users.userId, followPlans.updatedBy))
      .where(where)
      .orderBy(desc(followPlans.id))
      .$dynamic(),
    page,
  );
  const ids = rows.map((r) => r.plan.id);
  const visits = ids.length
    ? await ctx.db
        .select()
        .from(followPlanVisits)
        .where(
          and(
            inArray(followPlanVisits.planId, ids),
            eq(followPlanVisits.draft, false),
            isNull(followPlanVisits.deletedAt),
          ),
        )
        .orderBy(asc(followPlanVisits.sort))
    : [];
  return {
    list: rows.map(({ plan, updater }) => ({
      id: plan.id,
      studyId: plan.studyId,
      planName: plan.planName,
      diseaseCode: plan.diseaseCode,
      remark: plan.remark,
      visitCount: visits.filter((v) => v.planId === plan.id).length,
      visitNames: visits.filter((v) => v.planId === plan.id).map((v) => v.visitName),
      hasDraft: plan.draft !== null,
      updateBy: updater ?? '',
      updateTime: plan.updatedAt,
    })),
    total,
  };
}

export async function livePlan(db: Db, planId: number) {
  const [plan] = await db
    .select()
    .from(followPlans)
    .where(and(eq(followPlans.id, planId), isNull(followPlans.deletedAt)));
  if (!plan) throw AppError.notFound('follow.plan_not_found', '随访计划不存在');
  return plan;
}

export async function getPlan(ctx: AppContext, planId: number) {
  const plan = await livePlan(ctx.db, planId);
  const visits = await liveVisitsOf(ctx.db, planId);
  const crfIds = [...new Set(visits.flatMap((v) => v.crfIds))];
  const titles = crfIds.length
    ? await ctx.db.select({ id: crfs.id, title: crfs.title }).from(crfs).where(inArray(crfs.id, crfIds))
    : [];
  const people = [...new Set(visits.flatMap((v) => (v.responsibleUserId ? [v.responsibleUserId] : [])))];
  const names = people.length
    ? await ctx.db.select({ userId: users.userId, name: users.name }).from(users).where(inArray(users.userId, people))
    : [];
  const pending = await pendingCount(ctx.db, plan.id);
  return {
    id: plan.id,
    studyId: plan.studyId,
    planName: plan.planName,
    diseaseCode: plan.diseaseCode,
    remark: plan.remark,
    pendingRecords: pending,
    visits: visits.map((v) => ({
      id: v.id,
      ...visitView(v),
      responsibleName: names.find((n) => n.userId === v.responsibleUserId)?.name ?? null,
      crfs: v.crfIds.map((id) => ({ crfId: id, title: titles.find((t) => t.id === id)?.title ?? '' })),
    })),
  };
}

export async function createPlan(ctx: AppContext, user: CurrentUser, input: PlanInput) {
  await checkPlanInput(ctx.db, input);
  const now = ctx.clock();
  const planId = await ctx.db.transaction(async (tx) => {
    const [plan] = await tx
      .insert(followPlans)
      .values({
        studyId: input.studyId,
        planName: input.planName,
        diseaseCode: input.diseaseCode || null,
        remark: input.remark ?? '',
        createdBy: user.userId,
        updatedBy: user.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const visits = await insertVisits(tx, plan!.studyId, plan!.id, input.visits, 0, now);
    await audit(tx, user, now, [
      {
        studyId: input.studyId,
        action: 'follow.plan.create',
        itemName: plan!.planName,
        newValue: { planName: plan!.planName, diseaseCode: plan!.diseaseCode, visits: visits.map(visitView) },
      },
    ]);
    // A new plan's visits are new for every patient: nothing moves, so patients already enrolled get them.
    await scheduleStudy(ctx, tx, { kind: 'user', user }, input.studyId, now, plan!.id);
    return plan!.id;
  });
  await pushVisitCounts(ctx, input.studyId);
  return { id: planId };
}

/** The columns of a plan visit its editor sets, as a new visit is written and an edited one updated. */
/** A visit's columns as the plan's input gives them (its name trimmed). */
export function visitColumns(v: PlanVisitInput) {
  return {
    visitName: v.visitName.trim(),
    offset: v.offset,
    unit: v.unit,
    windowBefore: v.windowBefore,
    windowAfter: v.windowAfter,
    repeatEvery: v.repeatEvery ?? null,
    repeatUntil: v.repeatUntil ?? null,
    responsibleUserId: v.responsibleUserId ?? null,
    crfIds: v.crfIds,
  };
}

async function insertVisits(
  tx: Db,
  studyId: number,
  planId: number,
  visits: PlanVisitInput[],
  from: number,
  now: Date,
) {
  if (!visits.length) return [];
  return tx
    .insert(followPlanVisits)
    .values(
      visits.map((v, i) => ({
        studyId,
        planId,
        sort: from + i,
        ...visitColumns(v),
        createdAt: now,
        updatedAt: now,
      })),
    )
    .returning();
}

/**
 * Edits a plan. Visits keep their ids (rescheduling matches a patient's visits by them); a visit left out is
 * retired, not erased. With `reschedule` the pending visits of every enrolled patient follow the new plan
 * (moved, created, retired); done, lost and hand-dated visits never move. Without it, patients keep what they
 * have and only patients scheduled from now on get the new plan.
 */
export async function updatePlan(
  ctx: AppContext,
  user: CurrentUser,
  input: PlanInput & { id: number; reschedule: boolean },
) {
  const plan = await livePlan(ctx.db, input.id);
  if (plan.studyId !== input.studyId) throw AppError.notFound('follow.plan_not_found', '随访计划不存在');
  await checkPlanInput(ctx.db, input);
  const now = ctx.clock();
  const result = await ctx.db.transaction((tx) => applyPlanUpdate(ctx, tx, user, plan, input, now));
  await pushVisitCounts(ctx, plan.studyId);
  return result;
}

/**
 * The plan edit itself, in the caller's transaction (the plan PUT, and publishing a plan draft): visits updated,
 * added and retired, audited, and with `reschedule` every patient's pending visits following the new plan.
 */
export async function applyPlanUpdate(
  ctx: AppContext,
  tx: Db,
  user: CurrentUser,
  plan: typeof followPlans.$inferSelect,
  input: PlanInput & { reschedule: boolean },
  now: Date,
  adopt: ReadonlySet<number> = new Set(),
) {
  const before = await liveVisitsOf(tx, plan.id);
  const keep = new Set(input.visits.flatMap((v) => (v.id ? [v.id] : [])));
  for (const id of keep) {
    if (!before.some((b) => b.id === id) && !adopt.has(id)) {
      throw AppError.badRequest('follow.visit_missing', '访视不存在');
    }
  }
  await tx
    .update(followPlans)
    .set({
      planName: input.planName,
      diseaseCode: input.diseaseCode || null,
      remark: input.remark ?? '',
      updatedBy: user.userId,
      updatedAt: now,
    })
    .where(eq(followPlans.id, plan.id));
  const gone = before.filter((b) => !keep.has(b.id));
  if (gone.length) {
    await tx
      .update(followPlanVisits)
      .set({ deletedAt: now, updatedAt: now })
      .where(
        inArray(
          followPlanVisits.id,
          gone.map((g) => g.id),
        ),
      );
  }
  const after: PlanVisitRow[] = [];
  for (const [sort, v] of input.visits.entries()) {
    if (v.id) {
      const [row] = await tx
        .update(followPlanVisits)
        .set({
          sort,
          ...visitColumns(v),
          draft: false,
          updatedAt: now,
        })
        .where(and(eq(followPlanVisits.id, v.id), eq(followPlanVisits.planId, plan.id)))
        .returning();
      after.push(row!);
    } else {
      after.push(...(await insertVisits(tx, plan.studyId, plan.id, [v], sort, now)));
    }
  }
  await audit(tx, user, now, [
    {
      studyId: plan.studyId,
      action: 'follow.plan.update',
      itemName: input.planName,
      oldValue: { planName: plan.planName, diseaseCode: plan.diseaseCode, visits: before.map(visitView) },
      newValue: {
        planName: input.planName,
        diseaseCode: input.diseaseCode || null,
        visits: after.map(visitView),
        reschedule: input.reschedule,
      },
    },
  ]);
  const changed = input.reschedule
    ? await scheduleStudy(ctx, tx, { kind: 'user', user }, plan.studyId, now, plan.id)
    : 0;
  return { id: plan.id, rescheduledPatients: changed };
}

async function pendingCount(db: Db, planId: number) {
  const [row] = (await db
    .select({ n: count() })
    .from(followRecords)
    .where(and(eq(followRecords.planId, planId), isNull(followRecords.mark), isNull(followRecords.completedOn)))) as [
    { n: number },
  ];
  return Number(row.n);
}

/**
 * Deletes a plan. While patients have pending visits of it, it is refused unless the caller confirms that
 * those pending visits are deleted with it (marked 已删除 with the reason, restorable); done and lost visits stay
 * as they are and keep naming the retired plan.
 */
export async function deletePlan(ctx: AppContext, user: CurrentUser, planId: number, removePending: boolean) {
  const plan = await livePlan(ctx.db, planId);
  const pending = await pendingCount(ctx.db, planId);
  if (pending > 0 && !removePending) {
    throw new AppError(409, 'follow.plan_in_use', `该计划下有${pending}条未完成的随访记录，确认后将一并删除`, {
      pendingRecords: pending,
    });
  }
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(followPlans)
      .set({ deletedAt: now, updatedAt: now, updatedBy: user.userId })
      .where(eq(followPlans.id, planId));
    const rows = await tx
      .select()
      .from(followRecords)
      .where(and(eq(followRecords.planId, planId), isNull(followRecords.mark), isNull(followRecords.completedOn)));
    await markRecords(tx, { kind: 'user', user }, now, rows, 'deleted', '随访计划已删除', 'follow.delete');
    await audit(tx, user, now, [
      {
        studyId: plan.studyId,
        action: 'follow.plan.delete',
        itemName: plan.planName,
        oldValue: { planName: plan.planName },
        newValue: { removedPending: rows.length },
      },
    ]);
  });
  await pushVisitCounts(ctx, plan.studyId);
  return { removedPending: pending };
}

/** Forms that can be follow-up forms: the study's live CRFs. */
export async function followCrfs(ctx: AppContext, studyId: number) {
  return ctx.db
    .select({ crfId: crfs.id, title: crfs.title })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
}
