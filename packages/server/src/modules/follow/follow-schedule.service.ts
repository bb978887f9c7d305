import { and, asc, eq, inArray, isNull, or } from 'drizzle-orm';
import {
  addDays,
  followStateOf,
  generateSchedule,
  isDateString,
  reschedule,
  todayString,
  type FollowMark,
  type OffsetUnit,
  type PlanVisitRule,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  followPlanVisits,
  followPlans,
  followRecordCrfs,
  followRecords,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { livePatientOfStudy } from '../../shared/live-patient.js';
import type { AuditEntry } from '../audit/audit.service.js';
import { assertWritable, lockRefusals } from '../locks/lock-gate.js';
import { pushVisitCounts } from './follow-push.js';
import { draftScheduleVisits, storedDraft, type ScheduleVisit } from './follow-draft-visits.js';
import { markRecords, stateOf, studyZone, writeAudit, type Actor } from './follow-shared.js';

// Scheduling a patient: the visits a patient's plans generate from the trigger date, created and moved.

export type PlanVisitRow = typeof followPlanVisits.$inferSelect;

export const ruleOf = (v: ScheduleVisit): PlanVisitRule => ({
  id: v.id,
  name: v.visitName,
  offset: v.offset,
  unit: v.unit as OffsetUnit,
  windowBefore: v.windowBefore,
  windowAfter: v.windowAfter,
  repeatEvery: v.repeatEvery,
  repeatUntil: v.repeatUntil,
});

export async function liveVisitsOf(db: Db, planId: number) {
  return db
    .select()
    .from(followPlanVisits)
    .where(
      and(eq(followPlanVisits.planId, planId), eq(followPlanVisits.draft, false), isNull(followPlanVisits.deletedAt)),
    )
    .orderBy(asc(followPlanVisits.sort));
}

/**
 * The date a patient's schedule counts from, in the study's zone: the trigger item's value when the study's
 * follow trigger names a form and an item (手术日期), else the enrolment date; plus the trigger's offset days.
 * Null while the trigger item holds no date yet (nothing is scheduled until it does).
 */
export async function triggerDateOf(
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

/**
 * The plans a patient is scheduled by, with their visits: the live visits, or for a test patient the visits of the
 * plan's open draft (issue 36: test patients try the draft before it is published).
 */
async function plansFor(db: Db, studyId: number, subject: { diseaseCode: string; test: boolean }, onlyPlanId?: number) {
  const { diseaseCode } = subject;
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
  const out: { plan: typeof followPlans.$inferSelect; visits: ScheduleVisit[] }[] = [];
  for (const plan of plans) {
    const draft = subject.test ? storedDraft(plan) : null;
    const drafted = draft ? draftScheduleVisits(draft) : null;
    out.push({ plan, visits: drafted ?? (await liveVisitsOf(db, plan.id)) });
  }
  return out;
}

/**
 * A patient's visits of one plan as rescheduling sees them: the rows, and which hold data (a form of the visit has a
 * saved record: such a visit never moves and is never retired). Plan-change impact reads them through this too.
 */
export async function existingVisitsOf(tx: Db, subjectId: number, planId: number, lock: boolean) {
  const query = tx
    .select()
    .from(followRecords)
    .where(and(eq(followRecords.subjectId, subjectId), eq(followRecords.planId, planId)));
  const rows = lock ? await query.for('update') : await query;
  const withData = rows.length
    ? await tx
        .selectDistinct({ id: followRecordCrfs.followRecordId })
        .from(followRecordCrfs)
        .innerJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
        .where(
          and(
            inArray(
              followRecordCrfs.followRecordId,
              rows.map((r) => r.id),
            ),
            isNull(crfDataRecords.deletedAt),
          ),
        )
    : [];
  const hasData = new Set(withData.map((w) => w.id));
  return rows.map((row) => ({
    row,
    visit: { ...row, mark: row.mark as FollowMark, hasData: hasData.has(row.id) },
  }));
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
      test: subjects.test,
      createdAt: subjects.createdAt,
      subjectRecordId: subjectRecords.id,
    })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(livePatientOfStudy(studyId, subjectId));
  // A patient (or study) gone by the time the event is delivered has nothing left to schedule.
  if (!subject) return false;
  const study = await studyZone(tx, studyId);
  const base = await triggerDateOf(tx, study, subject);
  if (!base) return false;
  const today = todayString(now, study.timeZone);
  let changed = false;
  for (const { plan, visits } of await plansFor(tx, studyId, subject, onlyPlanId)) {
    const facts = await existingVisitsOf(tx, subjectId, plan.id, true);
    const existing = facts.map((f) => f.row);
    const generated = generateSchedule(base, visits.map(ruleOf));
    const plan2 = reschedule(
      facts.map((f) => f.visit),
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

/**
 * The patients a study-wide (re)scheduling goes through, and which of them are locked: a locked patient's visits
 * (every patient's in a locked or finished study) keep their dates. Plan-change impact reads the same list.
 */
export async function studyPatients(tx: Db, studyId: number) {
  const patients = await tx
    .select({ id: subjects.id, subjectRecordId: subjectRecords.id, test: subjects.test })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(and(eq(subjects.studyId, studyId), isNull(subjects.deletedAt)))
    .orderBy(asc(subjects.id));
  const locked = await lockRefusals(tx, studyId, patients);
  return { patients, locked };
}

/** Schedules every enrolled patient of a study (after a plan is created or changed with rescheduling). */
export async function scheduleStudy(ctx: AppContext, tx: Db, actor: Actor, studyId: number, now: Date, planId: number) {
  const { patients, locked } = await studyPatients(tx, studyId);
  let changed = 0;
  for (const p of patients) {
    if (!locked(p) && (await scheduleSubject(tx, actor, studyId, p.id, now, planId))) changed++;
  }
  return changed;
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
