import { and, eq, inArray, isNull } from 'drizzle-orm';
import {
  followPlanImpact,
  todayString,
  type FollowAmendmentReport,
  type FollowDraft,
  type FollowDraftImpact,
  type FollowPlanImpact,
  type ImpactPatient,
  type OffsetUnit,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  amendments,
  crfs,
  departments,
  followPlans,
  studies,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { livePatientOfStudy } from '../../shared/live-patient.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { pushVisitCounts } from './follow-push.js';
import { applyPlanUpdate, checkPlanInput, livePlan, type PlanVisitInput } from './follow-plan.service.js';
import {
  placeDraftVisits,
  retireAllDraftRows,
  storedDraft,
  type DraftVisit,
  type StoredDraft,
} from './follow-draft-visits.js';
import {
  existingVisitsOf,
  liveVisitsOf,
  ruleOf,
  scheduleSubject,
  studyPatients,
  triggerDateOf,
} from './follow-schedule.service.js';
import { studyZone } from './follow-shared.js';

// A production study's follow-up plan draft (草稿, issue 36): the proposed visits kept in follow_plans.draft beside
// the live plan, what publishing them would do to existing patients' visits, and publishing them as an amendment.

type PlanRow = typeof followPlans.$inferSelect;

async function planOfStudy(db: Db, studyId: number, planId: number): Promise<PlanRow> {
  const plan = await livePlan(db, planId);
  if (plan.studyId !== studyId) throw AppError.notFound('follow.plan_not_found', '随访计划不存在');
  return plan;
}

function requireDraft(plan: PlanRow): StoredDraft {
  const draft = storedDraft(plan);
  if (!draft) throw AppError.notFound('follow.draft_missing', '该随访计划没有草稿');
  return draft;
}

/** Drafts belong to studies that are live: a study in 测试 edits its plans directly. */
async function requireProduction(db: Db, studyId: number) {
  const [study] = await db.select({ mode: studies.mode }).from(studies).where(eq(studies.studyId, studyId));
  if (study?.mode !== 'production') {
    throw AppError.badRequest('follow.draft_not_production', '项目尚未上线，请直接修改随访计划');
  }
}

/** The draft's visits must be the plan's (kept ones by id), its forms and people the study's, as the plan PUT checks. */
async function checkDraft(db: Db, plan: PlanRow, visits: PlanVisitInput[]) {
  await checkPlanInput(db, { studyId: plan.studyId, planName: plan.planName, visits });
  const live = await liveVisitsOf(db, plan.id);
  for (const v of visits) {
    if (v.id && !live.some((l) => l.id === v.id)) throw AppError.badRequest('follow.visit_missing', '访视不存在');
  }
}

/** GET /api/business/follow/draft: the open draft, its visits as the plan detail shows them; null when none. */
export async function getDraft(ctx: AppContext, studyId: number, planId: number): Promise<FollowDraft | null> {
  const plan = await planOfStudy(ctx.db, studyId, planId);
  const draft = storedDraft(plan);
  if (!draft) return null;
  const crfIds = [...new Set(draft.visits.flatMap((v) => v.crfIds))];
  const titles = crfIds.length
    ? await ctx.db.select({ id: crfs.id, title: crfs.title }).from(crfs).where(inArray(crfs.id, crfIds))
    : [];
  const people = [
    ...new Set([draft.updatedBy, ...draft.visits.flatMap((v) => (v.responsibleUserId ? [v.responsibleUserId] : []))]),
  ];
  const names = await ctx.db
    .select({ userId: users.userId, name: users.name })
    .from(users)
    .where(inArray(users.userId, people));
  const nameOf = (id: number | null | undefined) => names.find((n) => n.userId === id)?.name ?? null;
  return {
    planId: plan.id,
    visits: draft.visits.map((v) => ({
      id: v.id ?? null,
      visitName: v.visitName,
      offset: v.offset,
      unit: v.unit,
      windowBefore: v.windowBefore,
      windowAfter: v.windowAfter,
      repeatEvery: v.repeatEvery ?? null,
      repeatUntil: v.repeatUntil ?? null,
      responsibleUserId: v.responsibleUserId ?? null,
      responsibleName: nameOf(v.responsibleUserId),
      crfIds: v.crfIds,
      crfs: v.crfIds.map((id) => ({ crfId: id, title: titles.find((t) => t.id === id)?.title ?? '' })),
    })),
    updatedAt: draft.updatedAt,
    updatedByName: nameOf(draft.updatedBy) ?? '',
  };
}

/** PUT /api/business/follow/draft: opens or replaces the plan's draft. The live plan and every visit stay as they are. */
export async function saveDraft(
  ctx: AppContext,
  user: CurrentUser,
  input: { studyId: number; planId: number; visits: PlanVisitInput[] },
) {
  const plan = await planOfStudy(ctx.db, input.studyId, input.planId);
  await requireProduction(ctx.db, plan.studyId);
  await checkDraft(ctx.db, plan, input.visits);
  const now = ctx.clock();
  const visits = input.visits.map((v) => ({ ...v, id: v.id ?? null, visitName: v.visitName.trim() }));
  const rescheduled = await ctx.db.transaction(async (tx) => {
    await lockPlanRow(tx, plan.id);
    const placed = await placeDraftVisits(tx, plan, visits, now);
    const draft: StoredDraft = { visits: placed, updatedBy: user.userId, updatedAt: now.toISOString() };
    await tx.update(followPlans).set({ draft }).where(eq(followPlans.id, plan.id));
    await audit(tx, user, now, [
      {
        studyId: plan.studyId,
        action: 'follow.plan.draft',
        itemName: plan.planName,
        oldValue: storedDraft(plan) ? { visits: storedDraft(plan)!.visits.map(publicVisit) } : null,
        newValue: { visits },
      },
    ]);
    return rescheduleTestPatients(tx, user, plan, now);
  });
  if (rescheduled) await pushVisitCounts(ctx, plan.studyId);
  return { planId: plan.id };
}

/** The draft's visit as the API and the audit trail name it (a new visit has no id until published). */
const publicVisit = ({ draftVisitId: _row, ...v }: DraftVisit) => v;

async function lockPlanRow(tx: Db, planId: number) {
  await tx.select({ id: followPlans.id }).from(followPlans).where(eq(followPlans.id, planId)).for('update');
}

/**
 * The plan's test patients, rescheduled after its draft changed: they follow the draft (or the live plan once it is
 * discarded), as scheduling reads it. Locked patients keep their visits. Answers how many changed.
 */
async function rescheduleTestPatients(tx: Db, user: CurrentUser, plan: PlanRow, now: Date) {
  const { patients, locked } = await studyPatients(tx, plan.studyId);
  let changed = 0;
  for (const p of patients) {
    if (!p.test || locked(p)) continue;
    if (await scheduleSubject(tx, { kind: 'user', user }, plan.studyId, p.id, now, plan.id)) changed++;
  }
  return changed;
}

/** DELETE /api/business/follow/draft: discards the draft and nothing else. */
export async function discardDraft(ctx: AppContext, user: CurrentUser, studyId: number, planId: number) {
  const plan = await planOfStudy(ctx.db, studyId, planId);
  const draft = requireDraft(plan);
  const now = ctx.clock();
  const rescheduled = await ctx.db.transaction(async (tx) => {
    await lockPlanRow(tx, plan.id);
    await tx.update(followPlans).set({ draft: null }).where(eq(followPlans.id, plan.id));
    await retireAllDraftRows(tx, plan.id, now);
    await audit(tx, user, now, [
      {
        studyId: plan.studyId,
        action: 'follow.plan.draft_discard',
        itemName: plan.planName,
        oldValue: { visits: draft.visits.map(publicVisit) },
      },
    ]);
    return rescheduleTestPatients(tx, user, plan, now);
  });
  if (rescheduled) await pushVisitCounts(ctx, plan.studyId);
  return { planId: plan.id };
}

/**
 * The impact of putting `visits` in place of the plan's live visits, read in `tx` as publishing reads it: the
 * patients study-wide rescheduling goes through (locked ones kept), of the plan's disease, each with the trigger
 * date and the visits `scheduleSubject` would reschedule.
 */
async function impactIn(tx: Db, plan: PlanRow, visits: DraftVisit[], now: Date) {
  const study = await studyZone(tx, plan.studyId);
  const today = todayString(now, study.timeZone);
  const current = (await liveVisitsOf(tx, plan.id)).map(ruleOf);
  const proposed = visits.map((v) => ({
    // A visit the draft adds is scheduled (for test patients) under its draft row, which publishing keeps.
    id: v.id ?? v.draftVisitId ?? null,
    name: v.visitName.trim(),
    offset: v.offset,
    unit: v.unit as OffsetUnit,
    windowBefore: v.windowBefore,
    windowAfter: v.windowAfter,
    repeatEvery: v.repeatEvery ?? null,
    repeatUntil: v.repeatUntil ?? null,
  }));
  const { patients, locked } = await studyPatients(tx, plan.studyId);
  const facts: ImpactPatient[] = [];
  const who = new Map<
    number,
    { subjectRecordId: number; identificationCode: string; deptId: number | null; test: boolean }
  >();
  for (const p of patients) {
    const [subject] = await tx
      .select({
        subjectId: subjects.id,
        diseaseCode: subjects.diseaseCode,
        createdAt: subjects.createdAt,
        identificationCode: subjects.identificationCode,
        deptId: subjects.deptId,
        test: subjects.test,
        subjectRecordId: subjectRecords.id,
      })
      .from(subjects)
      .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
      .where(livePatientOfStudy(plan.studyId, p.id));
    // The plan's patients as scheduleSubject finds them: live, and of the plan's disease when it names one.
    if (!subject || (plan.diseaseCode !== null && plan.diseaseCode !== subject.diseaseCode)) continue;
    const triggerDate = await triggerDateOf(tx, study, subject);
    const existing = await existingVisitsOf(tx, subject.subjectId, plan.id, false);
    facts.push({
      subjectId: subject.subjectId,
      triggerDate,
      locked: locked(p) !== null,
      visits: existing.map((e) => e.visit),
    });
    who.set(subject.subjectId, subject);
  }
  return { today, impact: followPlanImpact(current, proposed, facts, today), who };
}

/** The impact with its patients named: only the caller's sites' patients (the counts stay study-wide). */
async function withPatients(
  db: Db,
  access: Pick<StudyAccess, 'siteIds'>,
  planId: number,
  { today, impact, who }: Awaited<ReturnType<typeof impactIn>>,
): Promise<FollowDraftImpact> {
  const deptIds = [...new Set([...who.values()].flatMap((w) => (w.deptId ? [w.deptId] : [])))];
  const sites = deptIds.length
    ? await db
        .select({ deptId: departments.deptId, deptName: departments.deptName })
        .from(departments)
        .where(inArray(departments.deptId, deptIds))
    : [];
  const patient = (subjectId: number) => {
    const w = who.get(subjectId)!;
    return {
      subjectRecordId: w.subjectRecordId,
      identificationCode: w.identificationCode,
      siteName: sites.find((s) => s.deptId === w.deptId)?.deptName ?? '',
      test: w.test,
    };
  };
  const seen = (subjectId: number) => seesSite(access, who.get(subjectId)?.deptId);
  return {
    planId,
    today,
    plan: impact.plan,
    counts: impact.counts,
    move: impact.move.filter((m) => seen(m.subjectId)).map((m) => ({ ...m, ...patient(m.subjectId) })),
    stay: impact.stay.filter((s) => seen(s.subjectId)).map((s) => ({ ...s, ...patient(s.subjectId) })),
  };
}

/**
 * GET /api/business/follow/draft/impact: what publishing the draft would do to every existing patient's visits; the
 * patients listed are the caller's sites' (docs/multi-centre.md), the counts the study's.
 */
export async function draftImpact(ctx: AppContext, access: StudyAccess, planId: number) {
  const studyId = access.studyId;
  const plan = await planOfStudy(ctx.db, studyId, planId);
  const draft = requireDraft(plan);
  await checkDraft(ctx.db, plan, draft.visits);
  const result = await ctx.db.transaction((tx) => impactIn(tx, plan, draft.visits, ctx.clock()));
  return withPatients(ctx.db, access, plan.id, result);
}

const reportOf = (impact: FollowPlanImpact): FollowAmendmentReport => ({
  ...impact.counts,
  planVisits: {
    added: impact.plan.added.length,
    removed: impact.plan.removed.length,
    changed: impact.plan.changed.length,
  },
});

/**
 * POST /api/business/follow/draft/publish: in one transaction, the impact is computed, the plan takes the draft's
 * visits through the plan edit itself (with rescheduling, which makes exactly the reported changes), the amendment
 * is recorded with the report's counts, the draft is closed, and the publishing is audited.
 */
export async function publishDraft(
  ctx: AppContext,
  user: CurrentUser,
  input: { studyId: number; planId: number; name: string },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    // The plan row locked first: two publishers (or a publisher and a discard) take turns.
    const [locked] = await tx
      .select()
      .from(followPlans)
      .where(and(eq(followPlans.id, input.planId), isNull(followPlans.deletedAt)))
      .for('update');
    if (!locked || locked.studyId !== input.studyId) {
      throw AppError.notFound('follow.plan_not_found', '随访计划不存在');
    }
    const draft = requireDraft(locked);
    await checkDraft(tx, locked, draft.visits);
    const { impact } = await impactIn(tx, locked, draft.visits, now);
    // Closed before the plan takes the visits: test patients are then rescheduled by the published plan, whose new
    // visits keep the draft rows their visits already point to.
    await tx.update(followPlans).set({ draft: null }).where(eq(followPlans.id, locked.id));
    const adopt = new Set(draft.visits.flatMap((v) => (v.id ? [] : v.draftVisitId ? [v.draftVisitId] : [])));
    const applied = await applyPlanUpdate(
      ctx,
      tx,
      user,
      locked,
      {
        studyId: locked.studyId,
        planName: locked.planName,
        diseaseCode: locked.diseaseCode,
        remark: locked.remark,
        visits: draft.visits.map(({ draftVisitId, ...v }) => ({ ...v, id: v.id ?? draftVisitId ?? null })),
        reschedule: true,
      },
      now,
      adopt,
    );
    await retireAllDraftRows(tx, locked.id, now);
    const report = reportOf(impact);
    const [amendment] = await tx
      .insert(amendments)
      .values({
        studyId: locked.studyId,
        name: input.name,
        kind: 'follow',
        followPlanId: locked.id,
        report,
        createdBy: user.userId,
        createdAt: now,
      })
      .returning({ id: amendments.id });
    await audit(tx, user, now, [
      {
        studyId: locked.studyId,
        action: 'follow.plan.publish',
        itemName: locked.planName,
        newValue: { amendmentId: amendment!.id, name: input.name, report },
        reason: input.name,
      },
    ]);
    return { amendmentId: amendment!.id, rescheduledPatients: applied.rescheduledPatients };
  });
  await pushVisitCounts(ctx, input.studyId);
  return result;
}
