import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  daysBetween,
  generateSchedule,
  isDateString,
  occurrenceOffsets,
  windowOf,
} from './schedule.js';
import { FOLLOW_STATES, followStateOf, nextStateChange, reschedule, type ExistingVisit } from './state.js';
import { todayString } from '../crf/date-time.js';

const dateArb = fc
  .date({ min: new Date(Date.UTC(1990, 0, 1)), max: new Date(Date.UTC(2090, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe('follow-up schedule: date arithmetic', () => {
  it('FOLLOW-01: a month end clamps (Jan 31 + 1 month = Feb 28/29), never chained', () => {
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2024-01-31', 2)).toBe('2024-03-31');
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2024-02-29', 48)).toBe('2028-02-29');
    expect(addMonths('2025-12-15', 1)).toBe('2026-01-15');
    expect(addMonths('2025-03-31', -1)).toBe('2025-02-28');
  });

  it('days cross month, year and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2023-02-28', 1)).toBe('2023-03-01');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
  });

  it('adding months gives a real date whose day is the original or the month end (property)', () => {
    fc.assert(
      fc.property(dateArb, fc.integer({ min: -240, max: 240 }), (date, months) => {
        const out = addMonths(date, months);
        expect(isDateString(out)).toBe(true);
        const [y, m, d] = date.split('-').map(Number) as [number, number, number];
        const [oy, om, od] = out.split('-').map(Number) as [number, number, number];
        expect((oy - y) * 12 + (om - m)).toBe(months);
        const last = new Date(Date.UTC(oy, om, 0)).getUTCDate();
        expect(od).toBe(Math.min(d, last));
      }),
    );
  });

  it('adding days round-trips and counts (property)', () => {
    fc.assert(
      fc.property(dateArb, fc.integer({ min: -5000, max: 5000 }), (date, n) => {
        expect(addDays(addDays(date, n), -n)).toBe(date);
        expect(daysBetween(date, addDays(date, n))).toBe(n);
      }),
    );
  });

  it('the trigger date is the study-zone date: 23:30 in Shanghai is already the next day', () => {
    const instant = new Date('2025-01-30T16:30:00Z');
    expect(todayString(instant, 'Asia/Shanghai')).toBe('2025-01-31');
    expect(todayString(instant, 'UTC')).toBe('2025-01-30');
    const visits = [{ id: 1, name: '1月', offset: 1, unit: 'month' as const, windowBefore: 7, windowAfter: 7 }];
    expect(generateSchedule(todayString(instant, 'Asia/Shanghai'), visits)[0]!.plannedDate).toBe('2025-02-28');
  });
});

describe('follow-up schedule: generation', () => {
  const plan = [
    { id: 1, name: '术后1月', offset: 1, unit: 'month' as const, windowBefore: 7, windowAfter: 14 },
    { id: 2, name: '术后2周', offset: 2, unit: 'week' as const, windowBefore: 3, windowAfter: 3 },
    {
      id: 3,
      name: '年度随访',
      offset: 12,
      unit: 'month' as const,
      windowBefore: 30,
      windowAfter: 30,
      repeatEvery: 12,
      repeatUntil: 36,
    },
  ];

  it('FOLLOW-01: offsets in days, weeks and months, windows, repeats, in date order', () => {
    const s = generateSchedule('2024-01-31', plan);
    expect(s.map((v) => [v.planVisitId, v.occurrence, v.plannedDate])).toEqual([
      [2, 0, '2024-02-14'],
      [1, 0, '2024-02-29'],
      [3, 0, '2025-01-31'],
      [3, 1, '2026-01-31'],
      [3, 2, '2027-01-31'],
    ]);
    expect(s[3]!.name).toBe('年度随访（第2次）');
    expect(windowOf(s[1]!)).toEqual({ start: '2024-02-22', end: '2024-03-14' });
  });

  it('repeats stop at the limit and never exceed the cap (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 3650 }),
        (offset, every, extra) => {
          const list = occurrenceOffsets({ offset, repeatEvery: every, repeatUntil: offset + extra });
          expect(list[0]).toBe(offset);
          expect(list.every((o) => o <= offset + extra)).toBe(true);
          expect(list.length).toBeLessThanOrEqual(200);
        },
      ),
    );
  });

  it('each visit lies inside its own window and every slot is generated once (property)', () => {
    fc.assert(
      fc.property(dateArb, (trigger) => {
        const s = generateSchedule(trigger, plan);
        const keys = new Set(s.map((v) => `${v.planVisitId}:${v.occurrence}`));
        expect(keys.size).toBe(s.length);
        for (const v of s) {
          const { start, end } = windowOf(v);
          expect(start <= v.plannedDate && v.plannedDate <= end).toBe(true);
          expect(v.plannedDate >= trigger).toBe(true);
        }
      }),
    );
  });
});

describe('follow-up states as days pass', () => {
  const visit = { plannedDate: '2025-03-10', windowBefore: 3, windowAfter: 5, completedOn: null, mark: null };

  it('FOLLOW-05: 未到期 → 待随访 → 已超窗 with a movable today; 已完成, 超窗完成, 失访, 已删除', () => {
    expect(followStateOf(visit, '2025-03-06')).toBe(FOLLOW_STATES.NOT_DUE);
    expect(followStateOf(visit, '2025-03-07')).toBe(FOLLOW_STATES.DUE);
    expect(followStateOf(visit, '2025-03-15')).toBe(FOLLOW_STATES.DUE);
    expect(followStateOf(visit, '2025-03-16')).toBe(FOLLOW_STATES.OVERDUE);
    expect(followStateOf({ ...visit, completedOn: '2025-03-12' }, '2025-04-01')).toBe(FOLLOW_STATES.DONE);
    expect(followStateOf({ ...visit, completedOn: '2025-03-20' }, '2025-04-01')).toBe(FOLLOW_STATES.DONE_LATE);
    expect(followStateOf({ ...visit, mark: 'lost' }, '2025-03-01')).toBe(FOLLOW_STATES.LOST);
    expect(followStateOf({ ...visit, mark: 'deleted' }, '2025-03-01')).toBe(FOLLOW_STATES.DELETED);
    expect(nextStateChange(visit, '2025-03-01')).toBe('2025-03-07');
    expect(nextStateChange(visit, '2025-03-08')).toBe('2025-03-16');
  });

  it('a pending visit only moves forward through 未到期, 待随访, 已超窗 as days pass (property)', () => {
    fc.assert(
      fc.property(
        dateArb,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        (planned, before, after) => {
          const v = { plannedDate: planned, windowBefore: before, windowAfter: after, completedOn: null, mark: null };
          let last = -1;
          for (let d = -before - 2; d <= after + 2; d++) {
            const s = followStateOf(v, addDays(planned, d));
            expect(s).toBeGreaterThanOrEqual(last);
            last = s;
          }
          expect(followStateOf(v, planned)).toBe(FOLLOW_STATES.DUE);
          expect(last).toBe(FOLLOW_STATES.OVERDUE);
        },
      ),
    );
  });
});

describe('follow-up rescheduling', () => {
  const plan = [
    { id: 1, name: 'V1', offset: 1, unit: 'month' as const, windowBefore: 7, windowAfter: 7 },
    { id: 2, name: 'V2', offset: 3, unit: 'month' as const, windowBefore: 7, windowAfter: 7 },
    { id: 3, name: 'V3', offset: 6, unit: 'month' as const, windowBefore: 7, windowAfter: 7 },
  ];
  const existingFrom = (trigger: string): ExistingVisit[] =>
    generateSchedule(trigger, plan).map((v, i) => ({
      id: i + 1,
      planVisitId: v.planVisitId,
      occurrence: v.occurrence,
      plannedDate: v.plannedDate,
      windowBefore: v.windowBefore,
      windowAfter: v.windowAfter,
      completedOn: null,
      mark: null,
      dateModified: false,
    }));

  it('FOLLOW-06: a new trigger date moves pending visits only; done, lost and hand-set dates stay', () => {
    const existing = existingFrom('2025-01-15');
    existing[0]!.completedOn = '2025-02-14';
    existing[1]!.dateModified = true;
    const r = reschedule(existing, generateSchedule('2025-01-20', plan));
    expect(r.create).toEqual([]);
    expect(r.move).toEqual([
      { id: 3, from: '2025-07-15', to: '2025-07-20', name: 'V3', windowBefore: 7, windowAfter: 7 },
    ]);
    expect(r.retire).toEqual([]);
  });

  it('a removed plan visit retires its pending visits; a new one is created', () => {
    const existing = existingFrom('2025-01-15');
    const r = reschedule(existing, generateSchedule('2025-01-15', [plan[0]!, { ...plan[2]!, id: 4 }]));
    expect(r.create.map((v) => v.planVisitId)).toEqual([4]);
    expect(r.retire.map((v) => v.id).sort()).toEqual([2, 3]);
  });

  it('rescheduling never moves or retires a done visit, and is idempotent (property)', () => {
    fc.assert(
      fc.property(dateArb, dateArb, fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), (t1, t2, done) => {
        const existing = existingFrom(t1).map((e, i) => (done[i] ? { ...e, completedOn: e.plannedDate } : e));
        const r = reschedule(existing, generateSchedule(t2, plan));
        const doneIds = new Set(existing.filter((e) => e.completedOn).map((e) => e.id));
        expect(r.move.some((m) => doneIds.has(m.id))).toBe(false);
        expect(r.retire.some((m) => doneIds.has(m.id))).toBe(false);
        const applied = existing.map((e) => {
          const m = r.move.find((x) => x.id === e.id);
          return m ? { ...e, plannedDate: m.to } : e;
        });
        const again = reschedule(applied, generateSchedule(t2, plan));
        expect(again.move).toEqual([]);
        expect(again.create).toEqual([]);
      }),
    );
  });
});
