import { describe, expect, it } from 'vitest';
import { redcapEventsOf, redcapUniqueEventName } from './redcap-events.js';

describe('redcapUniqueEventName', () => {
  it('names an event as REDCap does: Latin letters, digits and spaces, 18 characters, then the arm', () => {
    expect(redcapUniqueEventName('Event 1', [])).toBe('event_1_arm_1');
    expect(redcapUniqueEventName('Visit-2 (Day 30)', [])).toBe('visit2_day_30_arm_1');
    expect(redcapUniqueEventName('Screening and enrollment visit', [])).toBe('screening_and_enro_arm_1');
    expect(redcapUniqueEventName(' _Baseline_ ', [], 2)).toBe('baseline_arm_2');
  });

  it('names a label without Latin letters by its MD5, and repeats with b, c…', () => {
    expect(redcapUniqueEventName('基线', [])).toBe('79e32d6f86_arm_1');
    expect(redcapUniqueEventName('Visit', ['visit_arm_1'])).toBe('visit_arm_1b');
    expect(redcapUniqueEventName('visit!', ['visit_arm_1', 'visit_arm_1b', 'visit_arm_10'])).toBe('visit_arm_1c');
  });
});

describe('redcapEventsOf', () => {
  const stages = [
    { id: 10, name: 'Baseline' },
    { id: 11, name: 'Follow up' },
    { id: 12, name: 'Baseline' },
  ];

  it('one event per stage in order; a form is in the first stage holding it, else unscheduled', () => {
    const plan = redcapEventsOf(
      stages,
      [
        { stageId: 11, crfId: 1 },
        { stageId: 10, crfId: 1 },
        { stageId: 12, crfId: 2 },
      ],
      [1, 2, 3],
    );
    expect(plan.events.map((e) => [e.stageId, e.uniqueName, e.label])).toEqual([
      [10, 'baseline_arm_1', 'Baseline'],
      [11, 'follow_up_arm_1', 'Follow up'],
      [12, 'baseline_arm_1b', 'Baseline'],
      [null, 'unscheduled_arm_1', '未分阶段'],
    ]);
    expect(plan.eventOfForm(1)?.uniqueName).toBe('baseline_arm_1');
    expect(plan.eventOfForm(2)?.uniqueName).toBe('baseline_arm_1b');
    expect(plan.eventOfForm(3)?.uniqueName).toBe('unscheduled_arm_1');
  });

  it('no unscheduled event when every form has a stage; no events at all without stages', () => {
    expect(redcapEventsOf(stages, [{ stageId: 10, crfId: 1 }], [1]).events).toHaveLength(3);
    const classic = redcapEventsOf([], [], [1]);
    expect(classic.events).toEqual([]);
    expect(classic.eventOfForm(1)).toBeNull();
  });
});
