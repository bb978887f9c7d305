import { and, asc, count, desc, eq, gte, inArray, isNull, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import {
  FOLLOW_STATE_NAMES,
  FOLLOW_STATES,
  addDays,
  followStateOf,
  generateSchedule,
  isDateString,
  maskName,
  reschedule,
  todayString,
  windowOf,
  type FollowMark,
  type FollowState,
  type OffsetUnit,
  type PlanVisitRule,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  followPlanVisits,
  followPlans,
  followRecordCrfs,
  followRecords,
  studies,
  studyPersonnel,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit, auditSystem, type AuditEntry } from '../audit/audit.service.js';
import { assertWritable, lockRefusals } from '../locks/lock-gate.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { pushVisitCounts, type VisitChanges } from './follow-push.js';

/** The outbox subscriber that schedules visits and marks them done (events in shared/domain-events.ts). */
export const FOLLOW_SCHEDULER = 'follow.schedule';

type Actor = { kind: 'user'; user: CurrentUser } | { kind: 'system' };
type FollowRecordRow = typeof followRecords.$inferSelect;

async function writeAudit(tx: Db, actor: Actor, at: Date, entries: AuditEntry[]) {
  if (actor.kind === 'user') await audit(tx, actor.user, at, entries);
  else await auditSystem(tx, at, entries);
}

async function studyZone(db: Db, studyId: number) {
  const [row] = await db
    .select({ timeZone: studies.timeZone, followTriggers: studies.followTriggers })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  if (!row) throw AppError.notFound('study.not_found', '项目不存在');
  return row;
}

const stateOf = (
  r: Pick<FollowRecordRow, 'plannedDate' | 'windowBefore' | 'windowAfter' | 'completedOn' | 'mark'>,
  today: string,
) => followStateOf({ ...r, mark: r.mark as FollowMark }, today);

// ---------------------------------------------------------------------------------------------------------------
// Plans

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

type PlanVisitRow = typeof followPlanVisits.$inferSelect;

const ruleOf = (v: PlanVisitRow): PlanVisitRule => ({
  id: v.id,
  name: v.visitName,
  offset: v.offset,
  unit: v.unit as OffsetUnit,
  windowBefore: v.windowBefore,
  windowAfter: v.windowAfter,
  repeatEvery: v.repeatEvery,
  repeatUntil: v.repeatUntil,
});

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
async function checkPlanInput(db: Db, input: PlanInput) {
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
  const [{ total }] = (await ctx.db.select({ total: count() }).from(followPlans).where(where)) as [{ total: number }];
  const rows = await ctx.db
    .select({ plan: followPlans, updater: users.name })
    .from(followPlans)
    .leftJoin(users, eq(users.userId, followPlans.updatedBy))
    .where(where)
    .orderBy(desc(followPlans.id))
    .limit(page.limit)
    .offset(page.offset);
  const ids = rows.map((r) => r.plan.id);
  const visits = ids.length
    ? await ctx.db
        .select()
        .from(followPlanVisits)
        .where(and(inArray(followPlanVisits.planId, ids), isNull(followPlanVisits.deletedAt)))
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
      updateBy: updater ?? '',
      updateTime: plan.updatedAt,
    })),
    total: Number(total),
  };
}

export async function studyOfPlan(ctx: AppContext, planId: number) {
  const [row] = await ctx.db
    .select({ studyId: followPlans.studyId })
    .from(followPlans)
    .where(eq(followPlans.id, planId));
  return row?.studyId;
}

async function livePlan(db: Db, planId: number) {
  const [plan] = await db
    .select()
    .from(followPlans)
    .where(and(eq(followPlans.id, planId), isNull(followPlans.deletedAt)));
  if (!plan) throw AppError.notFound('follow.plan_not_found', '随访计划不存在');
  return plan;
}

async function liveVisitsOf(db: Db, planId: number) {
  return db
    .select()
    .from(followPlanVisits)
    .where(and(eq(followPlanVisits.planId, planId), isNull(followPlanVisits.deletedAt)))
    .orderBy(asc(followPlanVisits.sort));
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
        visitName: v.visitName.trim(),
        offset: v.offset,
        unit: v.unit,
        windowBefore: v.windowBefore,
        windowAfter: v.windowAfter,
        repeatEvery: v.repeatEvery ?? null,
        repeatUntil: v.repeatUntil ?? null,
        responsibleUserId: v.responsibleUserId ?? null,
        crfIds: v.crfIds,
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
  const result = await ctx.db.transaction(async (tx) => {
    const before = await liveVisitsOf(tx, plan.id);
    const keep = new Set(input.visits.flatMap((v) => (v.id ? [v.id] : [])));
    for (const id of keep) {
      if (!before.some((b) => b.id === id)) throw AppError.badRequest('follow.visit_missing', '访视不存在');
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
            visitName: v.visitName.trim(),
            offset: v.offset,
            unit: v.unit,
            windowBefore: v.windowBefore,
            windowAfter: v.windowAfter,
            repeatEvery: v.repeatEvery ?? null,
            repeatUntil: v.repeatUntil ?? null,
            responsibleUserId: v.responsibleUserId ?? null,
            crfIds: v.crfIds,
            updatedAt: now,
          })
          .where(eq(followPlanVisits.id, v.id))
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
  });
  await pushVisitCounts(ctx, plan.studyId);
  return result;
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

// ---------------------------------------------------------------------------------------------------------------
// Scheduling a patient

/**
 * The date a patient's schedule counts from, in the study's zone: the trigger item's value when the study's
 * follow trigger names a form and an item (手术日期), else the enrolment date; plus the trigger's offset days.
 * Null while the trigger item holds no date yet (nothing is scheduled until it does).
 */
async function triggerDateOf(
  db: Db,
  study: {
    timeZone: string;
    followTriggers: { enabled: boolean; crfId: number | null; itemName: string | null; offsetDays: number }[];
  },
  subject: { subjectRecordId: number; createdAt: Date },
): Promise<string | null> {
  const trigger = study.followTriggers[0];
  if (trigger?.enabled && trigger.crfId && trigger.itemName) {
    const [record] = await db
      .select({ values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.subjectRecordId, subject.subjectRecordId),
          eq(crfDataRecords.crfId, trigger.crfId),
          isNull(crfDataRecords.deletedAt),
        ),
      )
      .orderBy(asc(crfDataRecords.id))
      .limit(1);
    const raw = record?.values[trigger.itemName];
    const date = typeof raw === 'string' ? raw.trim().slice(0, 10) : '';
    return isDateString(date) ? addDays(date, trigger.offsetDays) : null;
  }
  const enrolled = todayString(subject.createdAt, study.timeZone);
  return trigger?.enabled ? addDays(enrolled, trigger.offsetDays) : enrolled;
}

/** The trigger's form: saves of it may move the trigger date. */
export async function triggerCrfOf(db: Db, studyId: number): Promise<number | null> {
  const [study] = await db
    .select({ followTriggers: studies.followTriggers })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  // A study gone by the time an event is delivered has no trigger.
  const t = study?.followTriggers[0];
  return t?.enabled && t.crfId && t.itemName ? t.crfId : null;
}

async function plansFor(db: Db, studyId: number, diseaseCode: string, onlyPlanId?: number) {
  const plans = await db
    .select()
    .from(followPlans)
    .where(
      and(
        eq(followPlans.studyId, studyId),
        isNull(followPlans.deletedAt),
        or(isNull(followPlans.diseaseCode), eq(followPlans.diseaseCode, diseaseCode)),
        onlyPlanId ? eq(followPlans.id, onlyPlanId) : undefined,
      ),
    );
  const out: { plan: typeof followPlans.$inferSelect; visits: PlanVisitRow[] }[] = [];
  for (const plan of plans) out.push({ plan, visits: await liveVisitsOf(db, plan.id) });
  return out;
}

/**
 * Generates or reschedules one patient's visits (core `reschedule`), in the caller's transaction: new slots
 * are created with their forms, pending visits move with an audit row naming the old and new dates, pending
 * visits of a removed plan visit are retired. Answers whether anything changed. Idempotent.
 */
export async function scheduleSubject(
  tx: Db,
  actor: Actor,
  studyId: number,
  subjectId: number,
  now: Date,
  onlyPlanId?: number,
): Promise<boolean> {
  const [subject] = await tx
    .select({
      subjectId: subjects.id,
      diseaseCode: subjects.diseaseCode,
      createdAt: subjects.createdAt,
      subjectRecordId: subjectRecords.id,
    })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(
      and(
        eq(subjects.id, subjectId),
        eq(subjects.studyId, studyId),
        isNull(subjects.deletedAt),
        isNull(subjectRecords.deletedAt),
      ),
    );
  // A patient (or study) gone by the time the event is delivered has nothing left to schedule.
  if (!subject) return false;
  const study = await studyZone(tx, studyId);
  const base = await triggerDateOf(tx, study, subject);
  if (!base) return false;
  const today = todayString(now, study.timeZone);
  let changed = false;
  for (const { plan, visits } of await plansFor(tx, studyId, subject.diseaseCode, onlyPlanId)) {
    const existing = await tx
      .select()
      .from(followRecords)
      .where(and(eq(followRecords.subjectId, subjectId), eq(followRecords.planId, plan.id)))
      .for('update');
    const generated = generateSchedule(base, visits.map(ruleOf));
    const plan2 = reschedule(
      existing.map((e) => ({ ...e, mark: e.mark as FollowMark })),
      generated,
    );
    const entries: AuditEntry[] = [];
    for (const g of plan2.create) {
      const pv = visits.find((v) => v.id === g.planVisitId)!;
      const facts = {
        plannedDate: g.plannedDate,
        windowBefore: g.windowBefore,
        windowAfter: g.windowAfter,
        completedOn: null,
        mark: null,
      };
      const [row] = await tx
        .insert(followRecords)
        .values({
          studyId,
          subjectId,
          subjectRecordId: subject.subjectRecordId,
          planId: plan.id,
          planVisitId: g.planVisitId,
          occurrence: g.occurrence,
          visitName: g.name,
          plannedDate: g.plannedDate,
          windowBefore: g.windowBefore,
          windowAfter: g.windowAfter,
          responsibleUserId: pv.responsibleUserId,
          state: followStateOf(facts, today),
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) continue;
      if (pv.crfIds.length) {
        await tx
          .insert(followRecordCrfs)
          .values(
            pv.crfIds.map((crfId) => ({ studyId, followRecordId: row.id, crfId, createdAt: now, updatedAt: now })),
          );
      }
      entries.push({
        studyId,
        subjectRecordId: subject.subjectRecordId,
        action: 'follow.schedule',
        itemName: g.name,
        newValue: { plannedDate: g.plannedDate, triggerDate: base },
      });
    }
    for (const m of plan2.move) {
      const row = existing.find((e) => e.id === m.id)!;
      const next = { ...row, plannedDate: m.to, windowBefore: m.windowBefore, windowAfter: m.windowAfter };
      await tx
        .update(followRecords)
        .set({
          plannedDate: m.to,
          visitName: m.name,
          windowBefore: m.windowBefore,
          windowAfter: m.windowAfter,
          state: stateOf(next, today),
          updatedAt: now,
        })
        .where(eq(followRecords.id, m.id));
      entries.push({
        studyId,
        subjectRecordId: subject.subjectRecordId,
        action: 'follow.reschedule',
        itemName: m.name,
        oldValue: { plannedDate: m.from, windowBefore: row.windowBefore, windowAfter: row.windowAfter },
        newValue: { plannedDate: m.to, windowBefore: m.windowBefore, windowAfter: m.windowAfter, triggerDate: base },
      });
    }
    const retired = existing.filter((e) => plan2.retire.some((r) => r.id === e.id));
    await markRecords(tx, actor, now, retired, 'deleted', '随访计划已变更', 'follow.delete', today);
    await writeAudit(tx, actor, now, entries);
    changed ||= entries.length > 0 || retired.length > 0;
  }
  return changed;
}

/** Schedules every enrolled patient of a study (after a plan is created or changed with rescheduling). */
async function scheduleStudy(ctx: AppContext, tx: Db, actor: Actor, studyId: number, now: Date, planId: number) {
  const patients = await tx
    .select({ id: subjects.id, subjectRecordId: subjectRecords.id })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(and(eq(subjects.studyId, studyId), isNull(subjects.deletedAt)))
    .orderBy(asc(subjects.id));
  // A locked patient's visits (every patient's in a locked or finished study) keep their dates.
  const locked = await lockRefusals(tx, studyId, patients);
  let changed = 0;
  for (const p of patients) {
    if (!locked(p) && (await scheduleSubject(tx, actor, studyId, p.id, now, planId))) changed++;
  }
  return changed;
}

async function markRecords(
  tx: Db,
  actor: Actor,
  now: Date,
  rows: FollowRecordRow[],
  mark: 'lost' | 'deleted',
  reason: string,
  action: 'follow.lost' | 'follow.delete',
  today?: string,
) {
  if (!rows.length) return;
  const day = today ?? todayString(now, (await studyZone(tx, rows[0]!.studyId)).timeZone);
  for (const row of rows) {
    await tx
      .update(followRecords)
      .set({ mark, markReason: reason, state: stateOf({ ...row, mark }, day), updatedAt: now })
      .where(eq(followRecords.id, row.id));
  }
  await writeAudit(
    tx,
    actor,
    now,
    rows.map((row) => ({
      studyId: row.studyId,
      subjectRecordId: row.subjectRecordId,
      action,
      itemName: row.visitName,
      oldValue: { state: FOLLOW_STATE_NAMES[row.state as FollowState] },
      newValue: { state: FOLLOW_STATE_NAMES[mark === 'lost' ? FOLLOW_STATES.LOST : FOLLOW_STATES.DELETED] },
      reason,
    })),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Reacting to clinical events (outbox subscriber) and the passing of days

/**
 * Enrolment and saves of the trigger form schedule or reschedule the patient; a submitted form completes the
 * visit it was filled for once all of that visit's forms are submitted. Works from the current rows, so a
 * repeated delivery changes nothing twice.
 */
export function subscribeFollowUp(ctx: AppContext): void {
  ctx.events.subscribe(
    FOLLOW_SCHEDULER,
    ['subject.enrolled', 'record.saved', 'record.submitted'],
    async ({ event, occurredAt }) => {
      if (event.type === 'subject.enrolled') {
        const changed = await ctx.db.transaction((tx) =>
          scheduleSubject(tx, { kind: 'system' }, event.studyId, event.subjectId, ctx.clock()),
        );
        if (changed) await pushVisitCounts(ctx, event.studyId);
        return;
      }
      if (event.type !== 'record.saved' && event.type !== 'record.submitted') return;
      let changed = false;
      if ((await triggerCrfOf(ctx.db, event.studyId)) === event.crfId) {
        changed = Boolean(
          await ctx.db.transaction((tx) =>
            scheduleSubject(tx, { kind: 'system' }, event.studyId, event.subjectId, ctx.clock()),
          ),
        );
      }
      if (event.type === 'record.submitted') {
        const done = await completeVisitsOf(ctx, event.studyId, event.recordId, occurredAt);
        if (done.length) await pushVisitCounts(ctx, event.studyId, done);
      }
      // A rescheduled patient's visits may enter or leave anyone's window.
      if (changed) await pushVisitCounts(ctx, event.studyId);
    },
  );
}

/** Completes the visits a submitted form finishes; answers the people responsible for them. */
async function completeVisitsOf(
  ctx: AppContext,
  studyId: number,
  crfDataRecordId: number,
  occurredAt: Date,
): Promise<number[]> {
  const responsible = new Set<number>();
  await ctx.db.transaction(async (tx) => {
    const links = await tx
      .select({ followRecordId: followRecordCrfs.followRecordId })
      .from(followRecordCrfs)
      .where(and(eq(followRecordCrfs.studyId, studyId), eq(followRecordCrfs.crfDataRecordId, crfDataRecordId)));
    if (!links.length) return;
    const { timeZone } = await studyZone(tx, studyId);
    const doneOn = todayString(occurredAt, timeZone);
    await tx
      .update(followRecordCrfs)
      .set({ submittedAt: occurredAt })
      .where(and(eq(followRecordCrfs.crfDataRecordId, crfDataRecordId), isNull(followRecordCrfs.submittedAt)));
    for (const { followRecordId } of links) {
      const [visit] = await tx.select().from(followRecords).where(eq(followRecords.id, followRecordId)).for('update');
      if (!visit || visit.completedOn || visit.mark === 'deleted') continue;
      const forms = await tx
        .select({ state: crfDataRecords.state, deletedAt: crfDataRecords.deletedAt })
        .from(followRecordCrfs)
        .leftJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
        .where(eq(followRecordCrfs.followRecordId, followRecordId));
      if (!forms.every((f) => f.state === 2 && !f.deletedAt)) continue;
      const done = { ...visit, completedOn: doneOn };
      // A lost patient who comes back and is seen: the visit is done, the lost mark yields to the forms.
      await tx
        .update(followRecords)
        .set({
          completedOn: doneOn,
          mark: null,
          markReason: null,
          state: stateOf({ ...done, mark: null }, doneOn),
          updatedAt: ctx.clock(),
        })
        .where(eq(followRecords.id, followRecordId));
      if (visit.responsibleUserId !== null) responsible.add(visit.responsibleUserId);
      await auditSystem(tx, ctx.clock(), [
        {
          studyId,
          subjectRecordId: visit.subjectRecordId,
          action: 'follow.complete',
          itemName: visit.visitName,
          oldValue: { state: FOLLOW_STATE_NAMES[visit.state as FollowState] },
          newValue: { state: FOLLOW_STATE_NAMES[stateOf({ ...done, mark: null }, doneOn)], completedOn: doneOn },
        },
      ]);
    }
  });
  return [...responsible];
}

/**
 * Brings the stored states of pending visits in line with today in each study's own zone. Pure date
 * arithmetic in SQL over pending rows only (done, lost and deleted visits never change by time), so running
 * it again, late or twice, gives the same rows: it catches up on any day missed.
 */
export async function refreshStates(db: Db, now: Date, studyId?: number, changes?: VisitChanges): Promise<number> {
  const list = await db
    .select({ studyId: studies.studyId, timeZone: studies.timeZone })
    .from(studies)
    .where(studyId ? eq(studies.studyId, studyId) : isNull(studies.deletedAt));
  let changed = 0;
  for (const s of list) {
    const today = todayString(now, s.timeZone);
    const computed = sql`(case
        when ${followRecords.plannedDate}::date - ${followRecords.windowBefore} > ${today}::date then ${FOLLOW_STATES.NOT_DUE}
        when ${followRecords.plannedDate}::date + ${followRecords.windowAfter} >= ${today}::date then ${FOLLOW_STATES.DUE}
        else ${FOLLOW_STATES.OVERDUE} end)::smallint`;
    const rows = await db
      .update(followRecords)
      .set({ state: computed })
      .where(
        and(
          eq(followRecords.studyId, s.studyId),
          isNull(followRecords.mark),
          isNull(followRecords.completedOn),
          ne(followRecords.state, computed),
        ),
      )
      .returning({ id: followRecords.id, responsibleUserId: followRecords.responsibleUserId });
    changed += rows.length;
    for (const { responsibleUserId } of rows) {
      if (responsibleUserId === null || !changes) continue;
      let users = changes.get(s.studyId);
      if (!users) changes.set(s.studyId, (users = new Set()));
      users.add(responsibleUserId);
    }
  }
  return changed;
}

/**
 * Refreshes a study's states before a read; whoever's visits the day moved hears their new count at once
 * (the hourly task would tell them within the hour).
 */
export async function refreshAndPush(ctx: AppContext, studyId: number): Promise<void> {
  const changes: VisitChanges = new Map();
  if (await refreshStates(ctx.db, ctx.clock(), studyId, changes)) {
    for (const [id, users] of changes) await pushVisitCounts(ctx, id, users);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Patient visits

export interface RecordFilter {
  studyId: number;
  state?: number[];
  startDate?: string;
  endDate?: string;
  responsibleUserId?: number;
  subjectId?: number;
  subjectRecordId?: number;
  keyword?: string;
  planId?: number;
}

async function presentRecords(
  ctx: AppContext,
  access: StudyAccess,
  rows: {
    record: FollowRecordRow;
    identificationCode: string;
    subjectName: string;
    planName: string | null;
    responsibleName: string | null;
  }[],
) {
  const ids = rows.map((r) => r.record.id);
  const forms = ids.length
    ? await ctx.db
        .select({
          id: followRecordCrfs.id,
          followRecordId: followRecordCrfs.followRecordId,
          crfId: followRecordCrfs.crfId,
          title: crfs.title,
          crfDataRecordId: followRecordCrfs.crfDataRecordId,
          state: crfDataRecords.state,
        })
        .from(followRecordCrfs)
        .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
        .leftJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
        .where(inArray(followRecordCrfs.followRecordId, ids))
        .orderBy(asc(followRecordCrfs.id))
    : [];
  const clear = seesIdentifiers(access);
  return rows.map(({ record: r, ...joined }) => {
    const { start, end } = windowOf(r);
    return {
      followRecordId: r.id,
      studyId: r.studyId,
      subjectId: r.subjectId,
      subjectRecordId: r.subjectRecordId,
      identificationCode: joined.identificationCode,
      subjectName: clear ? joined.subjectName : maskName(joined.subjectName),
      planId: r.planId,
      planName: joined.planName ?? '',
      visitName: r.visitName,
      plannedDate: r.plannedDate,
      windowStart: start,
      windowEnd: end,
      windowBefore: r.windowBefore,
      windowAfter: r.windowAfter,
      state: r.state,
      stateName: FOLLOW_STATE_NAMES[r.state as FollowState],
      markReason: r.markReason,
      completedOn: r.completedOn,
      dateModified: r.dateModified,
      custom: r.custom,
      responsibleUserId: r.responsibleUserId,
      responsibleName: joined.responsibleName ?? '',
      crfs: forms
        .filter((f) => f.followRecordId === r.id)
        .map((f) => ({
          followRecordCrfId: f.id,
          crfId: f.crfId,
          title: f.title,
          crfDataRecordId: f.crfDataRecordId,
          submitted: f.state === 2,
        })),
    };
  });
}

const recordSelect = {
  record: followRecords,
  identificationCode: subjects.identificationCode,
  subjectName: subjects.subjectName,
  planName: followPlans.planName,
  responsibleName: users.name,
};

function recordQuery(db: Db) {
  return db
    .select(recordSelect)
    .from(followRecords)
    .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
    .leftJoin(followPlans, eq(followPlans.id, followRecords.planId))
    .leftJoin(users, eq(users.userId, followRecords.responsibleUserId));
}

export async function listRecords(ctx: AppContext, access: StudyAccess, filter: RecordFilter, page: PageRequest) {
  await refreshAndPush(ctx, filter.studyId);
  const keyword = filter.keyword?.trim().replace(/[\\%_]/g, '\\$&');
  const conditions: (SQL | undefined)[] = [
    eq(followRecords.studyId, filter.studyId),
    isNull(subjects.deletedAt),
    // Only the visits of patients at the caller's sites (分中心).
    inCallerSites(access, subjects.deptId),
    filter.state?.length ? inArray(followRecords.state, filter.state) : ne(followRecords.state, FOLLOW_STATES.DELETED),
    filter.startDate ? gte(followRecords.plannedDate, filter.startDate) : undefined,
    filter.endDate ? lte(followRecords.plannedDate, filter.endDate) : undefined,
    filter.responsibleUserId ? eq(followRecords.responsibleUserId, filter.responsibleUserId) : undefined,
    filter.subjectId ? eq(followRecords.subjectId, filter.subjectId) : undefined,
    filter.subjectRecordId ? eq(followRecords.subjectRecordId, filter.subjectRecordId) : undefined,
    filter.planId ? eq(followRecords.planId, filter.planId) : undefined,
    keyword
      ? or(
          sql`${subjects.identificationCode} ilike ${`%${keyword}%`}`,
          seesIdentifiers(access) ? sql`${subjects.subjectName} ilike ${`%${keyword}%`}` : undefined,
        )
      : undefined,
  ];
  const where = and(...conditions);
  const [{ total }] = (await ctx.db
    .select({ total: count() })
    .from(followRecords)
    .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
    .where(where)) as [{ total: number }];
  const rows = await recordQuery(ctx.db)
    .where(where)
    .orderBy(asc(followRecords.plannedDate), asc(followRecords.id))
    .limit(page.limit)
    .offset(page.offset);
  return { list: await presentRecords(ctx, access, rows), total: Number(total) };
}

/** One patient's visits, every state included (the CRF page's sidebar and the patient's schedule). */
export async function subjectFollows(ctx: AppContext, access: StudyAccess, subjectRecordId: number) {
  const [rec] = await ctx.db
    .select({ studyId: subjectRecords.studyId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  if (!rec) throw AppError.notFound('subject.not_found', '患者不存在');
  await refreshAndPush(ctx, rec.studyId);
  const rows = await recordQuery(ctx.db)
    .where(eq(followRecords.subjectRecordId, subjectRecordId))
    .orderBy(asc(followRecords.plannedDate), asc(followRecords.id));
  return presentRecords(ctx, access, rows);
}

export async function studyOfFollowRecord(ctx: AppContext, followRecordId: number) {
  const [row] = await ctx.db
    .select({ studyId: followRecords.studyId })
    .from(followRecords)
    .where(eq(followRecords.id, followRecordId));
  return row?.studyId;
}

export async function studyOfFollowRecordCrf(ctx: AppContext, followRecordCrfId: number) {
  const [row] = await ctx.db
    .select({ studyId: followRecordCrfs.studyId })
    .from(followRecordCrfs)
    .where(eq(followRecordCrfs.id, followRecordCrfId));
  return row?.studyId;
}

async function lockedRecord(tx: Db, followRecordId: number) {
  const [row] = await tx.select().from(followRecords).where(eq(followRecords.id, followRecordId)).for('update');
  if (!row) throw AppError.notFound('follow.record_not_found', '随访记录不存在');
  // Every change a person makes to one visit comes through here: a locked patient's visits stay as they are.
  await assertWritable(tx, { studyId: row.studyId, subjectRecordId: row.subjectRecordId });
  return row;
}

/** Marks a visit lost (失访, with a reason) or restores a lost or deleted one to what its dates and forms say. */
export async function setRecordStatus(
  ctx: AppContext,
  user: CurrentUser,
  input: { followRecordId: number; action: 'lost' | 'restore'; reason: string },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, input.followRecordId);
    const { timeZone } = await studyZone(tx, row.studyId);
    const today = todayString(now, timeZone);
    if (input.action === 'lost') {
      if (row.mark) throw AppError.badRequest('follow.marked', '该随访已失访或已删除');
      if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能标记失访');
      await markRecords(tx, { kind: 'user', user }, now, [row], 'lost', input.reason, 'follow.lost', today);
    } else {
      if (!row.mark) throw AppError.badRequest('follow.not_marked', '该随访无需恢复');
      const state = stateOf({ ...row, mark: null }, today);
      await tx
        .update(followRecords)
        .set({ mark: null, markReason: null, state, updatedAt: now })
        .where(eq(followRecords.id, row.id));
      await audit(tx, user, now, [
        {
          studyId: row.studyId,
          subjectRecordId: row.subjectRecordId,
          action: 'follow.restore',
          itemName: row.visitName,
          oldValue: { state: FOLLOW_STATE_NAMES[row.state as FollowState], reason: row.markReason },
          newValue: { state: FOLLOW_STATE_NAMES[state] },
          reason: input.reason,
        },
      ]);
    }
    return { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
  });
  return afterVisitChange(ctx, result);
}

/** After a person changed one visit: its responsible person hears their new count. */
async function afterVisitChange(
  ctx: AppContext,
  change: { followRecordId: number; studyId: number; responsibleUserId: number | null },
) {
  if (change.responsibleUserId !== null) await pushVisitCounts(ctx, change.studyId, [change.responsibleUserId]);
  return { followRecordId: change.followRecordId };
}

/** Moves a visit's planned date (the window moves with it); a person's date is kept by later rescheduling. */
export async function changePlannedDate(
  ctx: AppContext,
  user: CurrentUser,
  input: { followRecordId: number; plannedDate: string; reason: string },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, input.followRecordId);
    const change = { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
    if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能修改计划日期');
    if (row.mark) throw AppError.badRequest('follow.marked', '该随访已失访或已删除');
    if (row.plannedDate === input.plannedDate) return change;
    const { timeZone } = await studyZone(tx, row.studyId);
    const state = stateOf({ ...row, plannedDate: input.plannedDate }, todayString(now, timeZone));
    await tx
      .update(followRecords)
      .set({ plannedDate: input.plannedDate, dateModified: true, state, updatedAt: now })
      .where(eq(followRecords.id, row.id));
    await audit(tx, user, now, [
      {
        studyId: row.studyId,
        subjectRecordId: row.subjectRecordId,
        action: 'follow.date',
        itemName: row.visitName,
        oldValue: { plannedDate: row.plannedDate },
        newValue: { plannedDate: input.plannedDate },
        reason: input.reason,
      },
    ]);
    return change;
  });
  return afterVisitChange(ctx, result);
}

export async function deleteRecord(ctx: AppContext, user: CurrentUser, followRecordId: number, reason: string) {
  const now = ctx.clock();
  const change = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, followRecordId);
    if (row.mark === 'deleted') throw AppError.badRequest('follow.marked', '该随访已删除');
    if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能删除');
    await markRecords(tx, { kind: 'user', user }, now, [row], 'deleted', reason, 'follow.delete');
    return { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
  });
  await afterVisitChange(ctx, change);
}

/** An unplanned visit (添加随访) with its forms, dated by a person. */
export async function addCustomVisit(
  ctx: AppContext,
  user: CurrentUser,
  input: {
    subjectRecordId: number;
    visitName: string;
    plannedDate: string;
    windowBefore: number;
    windowAfter: number;
    crfIds: number[];
    responsibleUserId?: number | null;
  },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const [rec] = await tx
      .select({ studyId: subjectRecords.studyId, subjectId: subjectRecords.subjectId })
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, input.subjectRecordId), isNull(subjectRecords.deletedAt)));
    if (!rec) throw AppError.notFound('subject.not_found', '患者不存在');
    await assertWritable(tx, { studyId: rec.studyId, subjectRecordId: input.subjectRecordId });
    await checkPlanInput(tx, {
      studyId: rec.studyId,
      planName: '',
      visits: [{ ...input, offset: 0, unit: 'day' }],
    });
    const { timeZone } = await studyZone(tx, rec.studyId);
    const facts = {
      plannedDate: input.plannedDate,
      windowBefore: input.windowBefore,
      windowAfter: input.windowAfter,
      completedOn: null,
      mark: null,
    };
    const [row] = await tx
      .insert(followRecords)
      .values({
        studyId: rec.studyId,
        subjectId: rec.subjectId,
        subjectRecordId: input.subjectRecordId,
        visitName: input.visitName.trim(),
        plannedDate: input.plannedDate,
        windowBefore: input.windowBefore,
        windowAfter: input.windowAfter,
        responsibleUserId: input.responsibleUserId ?? null,
        custom: true,
        dateModified: true,
        state: followStateOf(facts, todayString(now, timeZone)),
        createdBy: user.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(followRecordCrfs).values(
      input.crfIds.map((crfId) => ({
        studyId: rec.studyId,
        followRecordId: row!.id,
        crfId,
        createdAt: now,
        updatedAt: now,
      })),
    );
    await audit(tx, user, now, [
      {
        studyId: rec.studyId,
        subjectRecordId: input.subjectRecordId,
        action: 'follow.custom',
        itemName: row!.visitName,
        newValue: {
          plannedDate: input.plannedDate,
          windowBefore: input.windowBefore,
          windowAfter: input.windowAfter,
          crfIds: input.crfIds,
        },
      },
    ]);
    return { followRecordId: row!.id, studyId: rec.studyId, responsibleUserId: row!.responsibleUserId };
  });
  return afterVisitChange(ctx, result);
}

/** POST /api/business/subject/follow: (re)generates one patient's schedule now, as the trigger would. */
export async function scheduleSubjectNow(ctx: AppContext, user: CurrentUser, subjectRecordId: number) {
  const [rec] = await ctx.db
    .select({ studyId: subjectRecords.studyId, subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
  if (!rec) throw AppError.notFound('subject.not_found', '患者不存在');
  const changed = await ctx.db.transaction(async (tx) => {
    await assertWritable(tx, { studyId: rec.studyId, subjectRecordId });
    return scheduleSubject(tx, { kind: 'user', user }, rec.studyId, rec.subjectId, ctx.clock());
  });
  if (changed) await pushVisitCounts(ctx, rec.studyId);
  return { changed };
}

/** The forms of one visit, each with the form record filled for it (or null) and whether it is submitted. */
export async function recordCrfs(ctx: AppContext, followRecordId: number) {
  const [row] = await ctx.db.select().from(followRecords).where(eq(followRecords.id, followRecordId));
  if (!row) throw AppError.notFound('follow.record_not_found', '随访记录不存在');
  const forms = await ctx.db
    .select({
      followRecordCrfId: followRecordCrfs.id,
      crfId: followRecordCrfs.crfId,
      title: crfs.title,
      crfDataRecordId: followRecordCrfs.crfDataRecordId,
      state: crfDataRecords.state,
    })
    .from(followRecordCrfs)
    .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
    .leftJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
    .where(eq(followRecordCrfs.followRecordId, followRecordId))
    .orderBy(asc(followRecordCrfs.id));
  return forms.map((f) => ({
    followRecordCrfId: f.followRecordCrfId,
    followRecordId,
    subjectRecordId: row.subjectRecordId,
    crfId: f.crfId,
    title: f.title,
    crfDataRecordId: f.crfDataRecordId,
    submitted: f.state === 2,
  }));
}

/** One visit form: by its id, or by (visit, form). What the CRF page needs to open it for that visit. */
export async function recordCrf(
  ctx: AppContext,
  by: { followRecordCrfId: number } | { followRecordId: number; crfId: number },
) {
  const where =
    'followRecordCrfId' in by
      ? eq(followRecordCrfs.id, by.followRecordCrfId)
      : and(eq(followRecordCrfs.followRecordId, by.followRecordId), eq(followRecordCrfs.crfId, by.crfId));
  const [row] = await ctx.db
    .select({ crf: followRecordCrfs, visit: followRecords, title: crfs.title })
    .from(followRecordCrfs)
    .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
    .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
    .where(where);
  if (!row) throw AppError.notFound('follow.crf_not_found', '随访表单不存在');
  return {
    followRecordCrfId: row.crf.id,
    followRecordId: row.visit.id,
    subjectRecordId: row.visit.subjectRecordId,
    visitName: row.visit.visitName,
    plannedDate: row.visit.plannedDate,
    state: row.visit.state,
    stateName: FOLLOW_STATE_NAMES[row.visit.state as FollowState],
    crfId: row.crf.crfId,
    title: row.title,
    crfDataRecordId: row.crf.crfDataRecordId,
  };
}
