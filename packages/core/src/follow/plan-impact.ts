import { generateSchedule, type PlanVisitRule, type ScheduledVisit } from './schedule.js';
import { followStateOf, reschedule, type ExistingVisit, type FollowState } from './state.js';

/**
 * The impact of a follow-up plan change (方案修订 of a plan, issue 36): for every existing patient of the plan,
 * which visits would move (new date or window), be added, be removed (pending ones only) and which stay although
 * the change touches them. It is `reschedule` itself, run on the proposed plan, so the report is exactly what
 * publishing does (a property test holds them together); nothing here re-decides what moves.
 */

/**
 * A visit of the proposed plan: a kept visit carries its id; a new one has none yet, or the id of a row kept for it
 * that the current plan does not have (a draft's visit, on which test patients are already scheduled).
 */
export type ProposedPlanVisit = Omit<PlanVisitRule, 'id'> & { id?: number | null };

/** One of a patient's existing visits of the plan, with its name (for the report). */
export interface ImpactExistingVisit extends ExistingVisit {
  visitName: string;
}

export interface ImpactPatient {
  subjectId: number;
  /** The date the patient's schedule counts from; null while there is none (nothing is scheduled, before or after). */
  triggerDate: string | null;
  /** A locked patient's visits keep their dates: rescheduling skips the patient. */
  locked?: boolean;
  /** The patient's visits of this plan (custom visits are not the plan's). */
  visits: readonly ImpactExistingVisit[];
}

/** Why a visit the change touches stays as it is. */
export type FollowStayReason = 'done' | 'lost' | 'deleted' | 'data' | 'dateModified' | 'locked';

export interface FollowVisitChange {
  subjectId: number;
  kind: 'move' | 'add' | 'remove';
  /** The existing visit (null for an added one). */
  followRecordId: number | null;
  /** The plan visit (null for a visit added without a row yet; a draft's visit has its draft row). */
  planVisitId: number | null;
  occurrence: number;
  visitName: string;
  fromDate: string | null;
  toDate: string | null;
  fromWindow: { before: number; after: number } | null;
  toWindow: { before: number; after: number } | null;
  /** The visit's state on `today` after the change (null for a removed one). */
  state: FollowState | null;
}

export interface FollowVisitStay {
  subjectId: number;
  followRecordId: number;
  visitName: string;
  plannedDate: string;
  /** What the proposed plan would give it; null when the proposed plan drops its visit. */
  proposedDate: string | null;
  reason: FollowStayReason;
}

export interface FollowPlanImpactCounts {
  /** Patients considered (the plan's patients). */
  patients: number;
  /** Patients with at least one visit moved, added or removed. */
  affectedPatients: number;
  /** Patients without a trigger date yet: the plan reaches them when they get one. */
  unscheduledPatients: number;
  lockedPatients: number;
  move: number;
  add: number;
  remove: number;
  stay: number;
  /** Existing visits of the plan the change leaves untouched. */
  unchanged: number;
}

export interface FollowPlanImpact {
  /** The plan's own change: visits added, removed, changed (schedule fields: offset, unit, window, repeat). */
  plan: {
    added: { name: string }[];
    removed: { id: number; name: string }[];
    changed: { id: number; name: string }[];
  };
  move: FollowVisitChange[];
  stay: FollowVisitStay[];
  counts: FollowPlanImpactCounts;
}

/**
 * Gives the proposed plan's new visits ids no stored visit has (negative), so they schedule like any visit and can
 * never match a patient's existing visit, as a freshly inserted plan visit cannot.
 */
export function proposedRules(proposed: readonly ProposedPlanVisit[]): PlanVisitRule[] {
  return proposed.map((v, i) => ({ ...v, id: v.id ?? -(i + 1) }));
}

const SCHEDULE_FIELDS = ['offset', 'unit', 'windowBefore', 'windowAfter', 'repeatEvery', 'repeatUntil'] as const;

function planDiff(current: readonly PlanVisitRule[], proposed: readonly ProposedPlanVisit[]) {
  const kept = new Set(proposed.flatMap((v) => (v.id ? [v.id] : [])));
  const isCurrent = (id: number | null | undefined) => !!id && current.some((c) => c.id === id);
  return {
    added: proposed.filter((v) => !isCurrent(v.id)).map((v) => ({ name: v.name })),
    removed: current.filter((c) => !kept.has(c.id)).map((c) => ({ id: c.id, name: c.name })),
    changed: proposed.flatMap((v) => {
      const c = v.id ? current.find((x) => x.id === v.id) : undefined;
      if (!c) return [];
      const differs = SCHEDULE_FIELDS.some((f) => (c[f] ?? null) !== (v[f] ?? null));
      return differs ? [{ id: c.id, name: v.name }] : [];
    }),
  };
}

const slotKey = (planVisitId: number, occurrence: number) => `${planVisitId}:${occurrence}`;

function slotsOf(schedule: readonly ScheduledVisit[]) {
  return new Map(schedule.map((s) => [slotKey(s.planVisitId, s.occurrence), s] as const));
}

/** Whether the change leaves a slot as it was: both absent, or both with the same date and window. */
const sameSlot = (a: ScheduledVisit | undefined, b: ScheduledVisit | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : a.plannedDate === b.plannedDate && a.windowBefore === b.windowBefore && a.windowAfter === b.windowAfter;

function holdReason(v: ImpactExistingVisit, locked: boolean): FollowStayReason | null {
  if (v.completedOn !== null) return 'done';
  if (v.mark === 'deleted') return 'deleted';
  if (v.mark === 'lost') return 'lost';
  if (locked) return 'locked';
  if (v.hasData === true) return 'data';
  if (v.dateModified) return 'dateModified';
  return null;
}

/**
 * What publishing `proposed` in place of `current` does to each patient's visits of the plan, on `today` (the
 * study zone's date). Moves, additions and removals are `reschedule`'s; a visit is listed as staying when the
 * change touches its slot (a new date or window, or its visit dropped) but it is done, lost, deleted, holds data,
 * was dated by a person, or its patient is locked.
 */
export function followPlanImpact(
  current: readonly PlanVisitRule[],
  proposed: readonly ProposedPlanVisit[],
  patients: readonly ImpactPatient[],
  today: string,
): FollowPlanImpact {
  const rules = proposedRules(proposed);
  const move: FollowVisitChange[] = [];
  const stay: FollowVisitStay[] = [];
  const counts: FollowPlanImpactCounts = {
    patients: patients.length,
    affectedPatients: 0,
    unscheduledPatients: 0,
    lockedPatients: 0,
    move: 0,
    add: 0,
    remove: 0,
    stay: 0,
    unchanged: 0,
  };
  for (const p of patients) {
    if (p.triggerDate === null) {
      counts.unscheduledPatients++;
      counts.unchanged += p.visits.length;
      continue;
    }
    if (p.locked) counts.lockedPatients++;
    const before = slotsOf(generateSchedule(p.triggerDate, current));
    const afterSchedule = generateSchedule(p.triggerDate, rules);
    const after = slotsOf(afterSchedule);
    const touched = new Set<number>();
    if (!p.locked) {
      const r = reschedule(p.visits, afterSchedule);
      for (const g of r.create) {
        move.push({
          subjectId: p.subjectId,
          kind: 'add',
          followRecordId: null,
          planVisitId: g.planVisitId > 0 ? g.planVisitId : null,
          occurrence: g.occurrence,
          visitName: g.name,
          fromDate: null,
          toDate: g.plannedDate,
          fromWindow: null,
          toWindow: { before: g.windowBefore, after: g.windowAfter },
          state: followStateOf({ ...g, completedOn: null, mark: null }, today),
        });
      }
      for (const m of r.move) {
        const e = p.visits.find((v) => v.id === m.id)!;
        touched.add(e.id);
        move.push({
          subjectId: p.subjectId,
          kind: 'move',
          followRecordId: e.id,
          planVisitId: e.planVisitId,
          occurrence: e.occurrence,
          visitName: m.name,
          fromDate: m.from,
          toDate: m.to,
          fromWindow: { before: e.windowBefore, after: e.windowAfter },
          toWindow: { before: m.windowBefore, after: m.windowAfter },
          state: followStateOf(
            {
              plannedDate: m.to,
              windowBefore: m.windowBefore,
              windowAfter: m.windowAfter,
              completedOn: null,
              mark: null,
            },
            today,
          ),
        });
      }
      for (const { id } of r.retire) {
        const e = p.visits.find((v) => v.id === id)!;
        touched.add(e.id);
        move.push({
          subjectId: p.subjectId,
          kind: 'remove',
          followRecordId: e.id,
          planVisitId: e.planVisitId,
          occurrence: e.occurrence,
          visitName: e.visitName,
          fromDate: e.plannedDate,
          toDate: null,
          fromWindow: { before: e.windowBefore, after: e.windowAfter },
          toWindow: null,
          state: null,
        });
      }
      const changes = r.create.length + r.move.length + r.retire.length;
      counts.add += r.create.length;
      counts.move += r.move.length;
      counts.remove += r.retire.length;
      if (changes) counts.affectedPatients++;
    }
    for (const e of p.visits) {
      if (touched.has(e.id) || e.planVisitId === null) continue;
      const key = slotKey(e.planVisitId, e.occurrence);
      const proposedSlot = after.get(key);
      const reason = holdReason(e, p.locked === true);
      if (reason && !sameSlot(before.get(key), proposedSlot)) {
        stay.push({
          subjectId: p.subjectId,
          followRecordId: e.id,
          visitName: e.visitName,
          plannedDate: e.plannedDate,
          proposedDate: proposedSlot?.plannedDate ?? null,
          reason,
        });
      } else counts.unchanged++;
    }
  }
  counts.stay = stay.length;
  return { plan: planDiff(current, proposed), move, stay, counts };
}
