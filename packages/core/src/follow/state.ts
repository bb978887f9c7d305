import { addDays, windowOf, type ScheduledVisit } from './schedule.js';

/**
 * A visit's state (forms §4; OpenClinica's scheduled / data entry started / completed / stopped / skipped).
 * The codes are stored and sent; the names are what every page shows. One place for both.
 */
export const FOLLOW_STATES = {
  NOT_DUE: 0,
  DUE: 1,
  OVERDUE: 2,
  DONE: 3,
  DONE_LATE: 4,
  LOST: 5,
  DELETED: 6,
} as const;
export type FollowState = (typeof FOLLOW_STATES)[keyof typeof FOLLOW_STATES];

export const FOLLOW_STATE_NAMES: Record<FollowState, string> = {
  0: '未到期',
  1: '待随访',
  2: '已超窗',
  3: '已完成',
  4: '超窗完成',
  5: '失访',
  6: '已删除',
};

/**
 * antd tag colours per state, so every page paints a state alike. Solid dark shades (white text, contrast ≥ 4.5:1
 * for WCAG AA) rather than antd's light status presets, whose yellow, green and blue text on a pale ground do not
 * reach it.
 */
export const FOLLOW_STATE_COLORS: Record<FollowState, string> = {
  0: 'default',
  1: '#0958d9',
  2: '#cf1322',
  3: '#237804',
  4: '#ad4e00',
  5: '#9e1068',
  6: 'default',
};

export const FOLLOW_STATE_CODES = Object.values(FOLLOW_STATES) as FollowState[];

/** A person's mark on a visit, which outranks the dates: lost or deleted (each with a reason, restorable). */
export type FollowMark = 'lost' | 'deleted' | null;

export interface VisitFacts {
  plannedDate: string;
  windowBefore: number;
  windowAfter: number;
  /** The study-zone date on which its last form was submitted, or null while not done. */
  completedOn: string | null;
  mark: FollowMark;
}

/** The state of a visit on `today` (a date in the study's zone). */
export function followStateOf(v: VisitFacts, today: string): FollowState {
  if (v.mark === 'deleted') return FOLLOW_STATES.DELETED;
  const { start, end } = windowOf(v);
  if (v.completedOn) return v.completedOn > end ? FOLLOW_STATES.DONE_LATE : FOLLOW_STATES.DONE;
  if (v.mark === 'lost') return FOLLOW_STATES.LOST;
  if (today < start) return FOLLOW_STATES.NOT_DUE;
  if (today <= end) return FOLLOW_STATES.DUE;
  return FOLLOW_STATES.OVERDUE;
}

export const isDone = (state: FollowState) => state === FOLLOW_STATES.DONE || state === FOLLOW_STATES.DONE_LATE;

/**
 * The next date on which a visit's state may change by itself (its window opens, or closes), or null when
 * only a person or a form can change it. The daily task needs no more than this to catch up on missed days.
 */
export function nextStateChange(v: VisitFacts, today: string): string | null {
  if (v.mark || v.completedOn) return null;
  const { start, end } = windowOf(v);
  if (today < start) return start;
  if (today <= end) return addDays(end, 1);
  return null;
}

/** A patient's existing visit as rescheduling sees it. */
export interface ExistingVisit {
  id: number;
  planVisitId: number | null;
  occurrence: number;
  plannedDate: string;
  windowBefore: number;
  windowAfter: number;
  completedOn: string | null;
  mark: FollowMark;
  /** A person moved its date (with a reason): rescheduling leaves that decision alone. */
  dateModified: boolean;
  /** A form of it holds a saved record (not yet submitted): the data was entered for this date, so it stays. */
  hasData?: boolean;
}

export interface ReschedulePlan {
  create: ScheduledVisit[];
  move: { id: number; from: string; to: string; name: string; windowBefore: number; windowAfter: number }[];
  /** Pending visits whose plan visit is gone: marked deleted (restorable), never erased. */
  retire: { id: number }[];
}

/**
 * What changes when a patient's schedule is generated again (a new trigger date, or an edited plan):
 * slots are matched by (plan visit, occurrence). Done, lost and deleted visits, visits with data entered and dates
 * a person set are never moved; custom (unplanned) visits are not the plan's and are left alone.
 */
export function reschedule(existing: readonly ExistingVisit[], generated: readonly ScheduledVisit[]): ReschedulePlan {
  const key = (planVisitId: number, occurrence: number) => `${planVisitId}:${occurrence}`;
  const byKey = new Map<string, ExistingVisit>();
  for (const e of existing) if (e.planVisitId !== null) byKey.set(key(e.planVisitId, e.occurrence), e);
  const wanted = new Set<string>();
  const plan: ReschedulePlan = { create: [], move: [], retire: [] };
  for (const g of generated) {
    const k = key(g.planVisitId, g.occurrence);
    wanted.add(k);
    const e = byKey.get(k);
    if (!e) {
      plan.create.push(g);
      continue;
    }
    const frozen = e.completedOn !== null || e.mark !== null || e.dateModified || e.hasData === true;
    const changed =
      e.plannedDate !== g.plannedDate || e.windowBefore !== g.windowBefore || e.windowAfter !== g.windowAfter;
    if (!frozen && changed) {
      plan.move.push({
        id: e.id,
        from: e.plannedDate,
        to: g.plannedDate,
        name: g.name,
        windowBefore: g.windowBefore,
        windowAfter: g.windowAfter,
      });
    }
  }
  for (const [k, e] of byKey) {
    if (!wanted.has(k) && e.completedOn === null && e.mark === null && e.hasData !== true) {
      plan.retire.push({ id: e.id });
    }
  }
  return plan;
}
