import { z } from 'zod';

/**
 * Follow-up scheduling (forms §4; anchors: REDCap events with a day offset and a window, OpenClinica repeating
 * event definitions). Everything here works on local calendar dates (`YYYY-MM-DD`) of the study's time zone:
 * the trigger instant is turned into the study's date once (`todayString(now, zone)` of crf/date-time.ts), and
 * from then on offsets, windows and month ends are pure date arithmetic that no host zone can shift.
 */

export const OFFSET_UNITS = [
  ['day', '天'],
  ['week', '周'],
  ['month', '月'],
] as const;
export type OffsetUnit = (typeof OFFSET_UNITS)[number][0];

/** The most occurrences one repeating visit may produce (a 10-year monthly schedule and some). */
export const MAX_REPEATS = 200;

/** One visit of a plan as the schedule reads it. */
export interface PlanVisitRule {
  /** The plan visit's id (stable across plan edits: rescheduling matches visits by it). */
  id: number;
  name: string;
  offset: number;
  unit: OffsetUnit;
  windowBefore: number;
  windowAfter: number;
  /** Repeat every `repeatEvery` units (same unit as the offset) until `repeatUntil` units after the trigger. */
  repeatEvery?: number | null;
  repeatUntil?: number | null;
}

export const planVisitRuleSchema = z
  .object({
    name: z.string().trim().min(1, '请输入访视名称').max(50),
    offset: z.number().int().min(0, '偏移不能为负数').max(3650),
    unit: z.enum(['day', 'week', 'month']),
    windowBefore: z.number().int().min(0).max(365),
    windowAfter: z.number().int().min(0).max(365),
    repeatEvery: z.number().int().min(1).max(120).nullish(),
    repeatUntil: z.number().int().min(1).max(3650).nullish(),
  })
  .refine((v) => !v.repeatEvery || (v.repeatUntil ?? 0) >= v.offset, {
    message: '重复截止必须不早于首次访视',
    path: ['repeatUntil'],
  });

/** A visit the schedule produces: which plan visit, which occurrence (0 = first), the planned date. */
export interface ScheduledVisit {
  planVisitId: number;
  occurrence: number;
  name: string;
  plannedDate: string;
  windowBefore: number;
  windowAfter: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parts(date: string): [number, number, number] {
  const m = DATE.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const fromUtc = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

export function isDateString(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = parts(date);
  return fromUtc(new Date(Date.UTC(y, m - 1, d + days)));
}

/** Calendar months; a day past the target month's end clamps to it (Jan 31 + 1 month = Feb 28 or 29). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const ty = Math.floor(index / 12);
  const tm = index - ty * 12 + 1;
  const last = new Date(Date.UTC(ty, tm, 0)).getUTCDate();
  return `${pad(ty, 4)}-${pad(tm)}-${pad(Math.min(d, last))}`;
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  const [ay, am, ad] = parts(a);
  const [by, bm, bd] = parts(b);
  return Math.round((Date.UTC(by, bm - 1, bd) - Date.UTC(ay, am - 1, ad)) / 86_400_000);
}

/** The date `amount` units after `base`; months always from the base itself, never chained, so ends do not drift. */
export function offsetDate(base: string, amount: number, unit: OffsetUnit): string {
  switch (unit) {
    case 'day':
      return addDays(base, amount);
    case 'week':
      return addDays(base, amount * 7);
    case 'month':
      return addMonths(base, amount);
  }
}

/** The offsets (in the visit's unit) of each occurrence of a visit: one, or every N until M. */
export function occurrenceOffsets(rule: Pick<PlanVisitRule, 'offset' | 'repeatEvery' | 'repeatUntil'>): number[] {
  if (!rule.repeatEvery || rule.repeatUntil === null || rule.repeatUntil === undefined) return [rule.offset];
  const out: number[] = [];
  for (let at = rule.offset; at <= rule.repeatUntil && out.length < MAX_REPEATS; at += rule.repeatEvery) out.push(at);
  return out.length ? out : [rule.offset];
}

/** The visits a plan gives for a trigger date, in date order (ties in plan order). */
export function generateSchedule(triggerDate: string, visits: readonly PlanVisitRule[]): ScheduledVisit[] {
  const out: (ScheduledVisit & { order: number })[] = [];
  visits.forEach((v, order) => {
    occurrenceOffsets(v).forEach((amount, occurrence) => {
      out.push({
        planVisitId: v.id,
        occurrence,
        name: occurrence === 0 ? v.name : `${v.name}（第${occurrence + 1}次）`,
        plannedDate: offsetDate(triggerDate, amount, v.unit),
        windowBefore: v.windowBefore,
        windowAfter: v.windowAfter,
        order,
      });
    });
  });
  out.sort((a, b) => (a.plannedDate < b.plannedDate ? -1 : a.plannedDate > b.plannedDate ? 1 : a.order - b.order));
  return out.map(({ order: _order, ...v }) => v);
}

/** The first and last day of a visit's window. */
export function windowOf(v: { plannedDate: string; windowBefore: number; windowAfter: number }) {
  return { start: addDays(v.plannedDate, -v.windowBefore), end: addDays(v.plannedDate, v.windowAfter) };
}
