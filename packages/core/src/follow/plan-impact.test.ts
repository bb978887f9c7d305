import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  followPlanImpact,
  type ImpactExistingVisit,
  type ImpactPatient,
  type ProposedPlanVisit,
} from './plan-impact.js';
import { generateSchedule, type PlanVisitRule } from './schedule.js';
import { FOLLOW_STATES, reschedule } from './state.js';

const visit = (id: number, name: string, offset: number, over: Partial<PlanVisitRule> = {}): PlanVisitRule => ({
  id,
  name,
  offset,
  unit: 'month',
  windowBefore: 7,
  windowAfter: 7,
  ...over,
});

/** A patient's visits as the current plan made them, all pending. */
function existingFrom(trigger: string, plan: readonly PlanVisitRule[], firstId = 1): ImpactExistingVisit[] {
  return generateSchedule(trigger, plan).map((g, i) => ({
    id: firstId + i,
    planVisitId: g.planVisitId,
    occurrence: g.occurrence,
    visitName: g.name,
    plannedDate: g.plannedDate,
    windowBefore: g.windowBefore,
    windowAfter: g.windowAfter,
    completedOn: null,
    mark: null,
    dateModified: false,
  }));
}

const current = [visit(1, 'V1', 1), visit(2, 'V3', 3), visit(3, 'V6', 6)];

describe('follow-up plan impact', () => {
  it('a done visit stays, an open visit moves, a new visit is added, a dropped pending visit is removed', () => {
    const visits = existingFrom('2025-01-15', current);
    visits[0]!.completedOn = '2025-02-14'; // V1 done
    const proposed: ProposedPlanVisit[] = [
      { ...visit(1, 'V1', 1), windowAfter: 14 }, // V1's window widens: done, it stays
      visit(2, 'V3', 4), // V3 moves a month later
      { ...visit(0, 'V12', 12), id: null }, // new
    ]; // V6 dropped
    const r = followPlanImpact(current, proposed, [{ subjectId: 7, triggerDate: '2025-01-15', visits }], '2025-03-01');
    expect(r.plan).toEqual({
      added: [{ name: 'V12' }],
      removed: [{ id: 3, name: 'V6' }],
      changed: [
        { id: 1, name: 'V1' },
        { id: 2, name: 'V3' },
      ],
    });
    expect(r.move.map((m) => [m.kind, m.visitName, m.fromDate, m.toDate, m.followRecordId, m.planVisitId])).toEqual([
      ['add', 'V12', null, '2026-01-15', null, null],
      ['move', 'V3', '2025-04-15', '2025-05-15', 2, 2],
      ['remove', 'V6', '2025-07-15', null, 3, 3],
    ]);
    expect(r.move[1]!.state).toBe(FOLLOW_STATES.NOT_DUE);
    expect(r.stay).toEqual([
      {
        subjectId: 7,
        followRecordId: 1,
        visitName: 'V1',
        plannedDate: '2025-02-15',
        proposedDate: '2025-02-15',
        reason: 'done',
      },
    ]);
    expect(r.counts).toEqual({
      patients: 1,
      affectedPatients: 1,
      unscheduledPatients: 0,
      lockedPatients: 0,
      move: 1,
      add: 1,
      remove: 1,
      stay: 1,
      unchanged: 0,
    });
  });

  it('visits with data, lost, deleted or hand-dated never move; a dropped visit with data is not removed', () => {
    const visits = existingFrom('2025-01-15', current);
    visits[0]!.hasData = true;
    visits[1]!.mark = 'lost';
    visits[2]!.dateModified = true;
    const proposed = [visit(1, 'V1', 2), visit(2, 'V3', 4), visit(3, 'V6', 7)];
    const r = followPlanImpact(current, proposed, [{ subjectId: 1, triggerDate: '2025-01-15', visits }], '2025-01-20');
    expect(r.move).toEqual([]);
    expect(r.stay.map((s) => [s.visitName, s.reason, s.proposedDate])).toEqual([
      ['V1', 'data', '2025-03-15'],
      ['V3', 'lost', '2025-05-15'],
      ['V6', 'dateModified', '2025-08-15'],
    ]);
    const dropped = followPlanImpact(
      current,
      [visit(2, 'V3', 3), visit(3, 'V6', 6)],
      [{ subjectId: 1, triggerDate: '2025-01-15', visits }],
      '2025-01-20',
    );
    expect(dropped.move).toEqual([]);
    expect(dropped.stay).toEqual([expect.objectContaining({ visitName: 'V1', reason: 'data', proposedDate: null })]);
  });

  it('a locked patient keeps every visit; a patient without a trigger date has nothing to change', () => {
    const visits = existingFrom('2025-01-15', current);
    const proposed = [visit(1, 'V1', 2), visit(2, 'V3', 3), visit(3, 'V6', 6)];
    const r = followPlanImpact(
      current,
      proposed,
      [
        { subjectId: 1, triggerDate: '2025-01-15', locked: true, visits },
        { subjectId: 2, triggerDate: null, visits: [] },
      ],
      '2025-01-20',
    );
    expect(r.move).toEqual([]);
    expect(r.stay.map((s) => [s.subjectId, s.visitName, s.reason])).toEqual([[1, 'V1', 'locked']]);
    expect(r.counts).toMatchObject({ lockedPatients: 1, unscheduledPatients: 1, unchanged: 2, affectedPatients: 0 });
  });

  it('an unchanged plan changes nothing', () => {
    const visits = existingFrom('2024-02-29', current);
    const r = followPlanImpact(current, current, [{ subjectId: 1, triggerDate: '2024-02-29', visits }], '2024-03-01');
    expect(r.move).toEqual([]);
    expect(r.stay).toEqual([]);
    expect(r.plan).toEqual({ added: [], removed: [], changed: [] });
    expect(r.counts.unchanged).toBe(3);
  });
});

// ---- property: the impact is exactly the difference between the visits before and after publishing ----

const dateArb = fc
  .date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2040, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const ruleFields = fc.record({
  offset: fc.integer({ min: 0, max: 24 }),
  unit: fc.constantFrom('day' as const, 'week' as const, 'month' as const),
  windowBefore: fc.integer({ min: 0, max: 10 }),
  windowAfter: fc.integer({ min: 0, max: 10 }),
  repeat: fc.option(fc.record({ every: fc.integer({ min: 1, max: 6 }), extra: fc.integer({ min: 0, max: 12 }) })),
});

const toRule = (id: number, f: typeof ruleFields extends fc.Arbitrary<infer T> ? T : never): PlanVisitRule => ({
  id,
  name: `V${id}`,
  offset: f.offset,
  unit: f.unit,
  windowBefore: f.windowBefore,
  windowAfter: f.windowAfter,
  repeatEvery: f.repeat ? f.repeat.every : null,
  repeatUntil: f.repeat ? f.offset + f.repeat.extra : null,
});

const planPairArb = fc
  .record({
    current: fc.array(ruleFields, { minLength: 1, maxLength: 4 }),
    // Per current visit: keep as is, keep with new schedule fields, or drop.
    fate: fc.array(fc.constantFrom('keep', 'change', 'drop'), { minLength: 4, maxLength: 4 }),
    changes: fc.array(ruleFields, { minLength: 4, maxLength: 4 }),
    added: fc.array(ruleFields, { maxLength: 2 }),
  })
  .map(({ current: cur, fate, changes, added }) => {
    const currentPlan = cur.map((f, i) => toRule(i + 1, f));
    const proposed: ProposedPlanVisit[] = [];
    currentPlan.forEach((c, i) => {
      if (fate[i] === 'keep') proposed.push(c);
      if (fate[i] === 'change') proposed.push({ ...toRule(c.id, changes[i]!), name: c.name });
    });
    added.forEach((f, i) => proposed.push({ ...toRule(100 + i, f), name: `N${i}`, id: null }));
    return { currentPlan, proposed };
  });

const visitStateArb = fc.constantFrom('pending', 'pending', 'done', 'lost', 'deleted', 'data', 'dateModified');

const patientArb = fc.record({
  triggerDate: fc.option(dateArb, { freq: 6 }),
  // The trigger date the visits were made from (a corrected surgery date leaves them out of step).
  madeFrom: fc.option(dateArb, { freq: 2 }),
  locked: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  states: fc.array(visitStateArb, { minLength: 40, maxLength: 40 }),
});

/** Publishing, as the server does it: the stored plan takes the proposed visits, then each patient is rescheduled. */
function publish(currentPlan: PlanVisitRule[], proposed: ProposedPlanVisit[], patients: ImpactPatient[]) {
  let nextId = 10_000;
  const stored = proposed.map((v) => ({ ...v, id: v.id ?? nextId++ }));
  const result = patients.map((p) => {
    if (p.triggerDate === null || p.locked) return { subjectId: p.subjectId, visits: [...p.visits] };
    const r = reschedule(p.visits, generateSchedule(p.triggerDate, stored));
    const visits = p.visits.map((e) => {
      const m = r.move.find((x) => x.id === e.id);
      if (m) return { ...e, plannedDate: m.to, windowBefore: m.windowBefore, windowAfter: m.windowAfter };
      if (r.retire.some((x) => x.id === e.id)) return { ...e, mark: 'deleted' as const };
      return e;
    });
    for (const g of r.create) {
      visits.push({
        id: nextId++,
        planVisitId: g.planVisitId,
        occurrence: g.occurrence,
        visitName: g.name,
        plannedDate: g.plannedDate,
        windowBefore: g.windowBefore,
        windowAfter: g.windowAfter,
        completedOn: null,
        mark: null,
        dateModified: false,
      });
    }
    return { subjectId: p.subjectId, visits };
  });
  return { stored, after: result };
}

describe('follow-up plan impact (property)', () => {
  it('for generated plans and patients, the impact lists exactly the visits publishing moves, adds and removes', () => {
    fc.assert(
      fc.property(
        planPairArb,
        fc.array(patientArb, { maxLength: 5 }),
        dateArb,
        ({ currentPlan, proposed }, ps, today) => {
          let id = 1;
          const patients: ImpactPatient[] = ps.map((p, subjectId) => {
            const made = p.madeFrom ?? p.triggerDate;
            const visits =
              made === null
                ? []
                : existingFrom(made, currentPlan, id).map((v, i) => {
                    const s = p.states[i % p.states.length];
                    return {
                      ...v,
                      completedOn: s === 'done' ? v.plannedDate : null,
                      mark: s === 'lost' ? ('lost' as const) : s === 'deleted' ? ('deleted' as const) : null,
                      hasData: s === 'data',
                      dateModified: s === 'dateModified',
                    };
                  });
            id += visits.length;
            return { subjectId, triggerDate: p.triggerDate, locked: p.locked, visits };
          });
          const impact = followPlanImpact(currentPlan, proposed, patients, today);
          const { stored, after } = publish(currentPlan, proposed, patients);

          const moved: string[] = [];
          const removed: string[] = [];
          const added: string[] = [];
          const untouched = new Set<number>();
          patients.forEach((p, i) => {
            for (const e of after[i]!.visits) {
              const b = p.visits.find((v) => v.id === e.id);
              if (!b) added.push(`${p.subjectId}|${e.visitName}|${e.plannedDate}|${e.windowBefore}|${e.windowAfter}`);
              else if (b.mark === null && e.mark === 'deleted') removed.push(`${p.subjectId}|${e.id}`);
              else if (
                b.plannedDate !== e.plannedDate ||
                b.windowBefore !== e.windowBefore ||
                b.windowAfter !== e.windowAfter
              ) {
                moved.push(
                  `${p.subjectId}|${e.id}|${b.plannedDate}|${e.plannedDate}|${e.windowBefore}|${e.windowAfter}`,
                );
              } else untouched.add(e.id);
            }
          });
          const of = (kind: string) => impact.move.filter((m) => m.kind === kind);
          expect(
            of('move')
              .map(
                (m) =>
                  `${m.subjectId}|${m.followRecordId}|${m.fromDate}|${m.toDate}|${m.toWindow!.before}|${m.toWindow!.after}`,
              )
              .sort(),
          ).toEqual(moved.sort());
          expect(
            of('remove')
              .map((m) => `${m.subjectId}|${m.followRecordId}`)
              .sort(),
          ).toEqual(removed.sort());
          expect(
            of('add')
              .map((m) => `${m.subjectId}|${m.visitName}|${m.toDate}|${m.toWindow!.before}|${m.toWindow!.after}`)
              .sort(),
          ).toEqual(added.sort());
          // Whatever stays was not touched, and never a visit that is done.
          for (const s of impact.stay) expect(untouched.has(s.followRecordId)).toBe(true);
          for (const m of impact.move) {
            const b = patients.flatMap((p) => p.visits).find((v) => v.id === m.followRecordId);
            expect(b?.completedOn ?? null).toBeNull();
            expect(b?.hasData ?? false).toBe(false);
          }
          // Every existing visit is counted once: moved, removed, staying or unchanged.
          const existing = patients.reduce((n, p) => n + p.visits.length, 0);
          expect(impact.counts.move + impact.counts.remove + impact.counts.stay + impact.counts.unchanged).toBe(
            existing,
          );
          expect(impact.counts.add).toBe(added.length);
          // Publishing again changes nothing: the impact of the published plan on the published visits is empty.
          const again = followPlanImpact(
            stored,
            stored,
            patients.map((p, i) => ({ ...p, visits: after[i]!.visits })),
            today,
          );
          expect(again.move).toEqual([]);
          expect(again.stay).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
