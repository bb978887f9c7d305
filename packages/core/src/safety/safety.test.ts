import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateForm } from '../crf/evaluate-form.js';
import { lintDefinition } from '../crf/linter.js';
import {
  AE_CAUSALITY,
  AE_FORM_TITLE,
  AE_GRADES,
  AE_ITEMS,
  AE_OUTCOMES,
  AE_SERIOUSNESS_CRITERIA,
  aeFormDefinition,
  aeLabel,
  aeSeriousness,
  saeClock,
  saeDeadline,
  SAE_REPORT_WINDOW_MS,
} from './index.js';

const MIN = 60_000;
const HOUR = 3600_000;
const aware = new Date('2026-11-22T08:00:00Z');
const deadline = saeDeadline(aware);

describe('AE vocabulary', () => {
  it('safety: the lists carry the spec’s Chinese labels in order', () => {
    expect(AE_SERIOUSNESS_CRITERIA.map(([, l]) => l)).toEqual([
      '导致死亡',
      '危及生命',
      '导致住院或住院时间延长',
      '导致永久或显著的残疾/功能丧失',
      '先天性异常/出生缺陷',
      '其他重要医学事件',
    ]);
    expect(AE_GRADES.map(([c]) => c)).toEqual(['1', '2', '3', '4', '5']);
    expect(aeLabel(AE_GRADES, '1')).toBe('1级 轻度');
    expect(aeLabel(AE_GRADES, '5')).toBe('5级 死亡');
    expect(AE_CAUSALITY.map(([, l]) => l)).toEqual([
      '肯定有关',
      '很可能有关',
      '可能有关',
      '可能无关',
      '肯定无关',
      '无法评价',
    ]);
    expect(AE_OUTCOMES.map(([, l]) => l)).toEqual(['痊愈', '好转', '未好转', '痊愈伴后遗症', '死亡', '未知']);
    expect(aeLabel(AE_OUTCOMES, 'old_code')).toBe('old_code');
  });
});

describe('the AE log form', () => {
  const definition = aeFormDefinition();

  it('safety: the form the module provides passes the upload linter with no error', () => {
    const lint = lintDefinition(definition);
    expect(lint.errors).toEqual([]);
    expect(lint.ok).toBe(true);
    expect(definition.title).toBe(AE_FORM_TITLE);
    expect(definition.children.map((n) => n.name)).toEqual(Object.values(AE_ITEMS));
  });

  const base = {
    ae_term: '皮疹',
    ae_start: '2026-11-20',
    ae_grade: '2',
    ae_causality: 'possible',
  };
  const evaluate = (values: Record<string, unknown>) =>
    evaluateForm(definition, values, { now: new Date('2026-11-22T08:00:00Z') });

  it('safety: criteria and awareness time show only for a serious event, and are then required', () => {
    const mild = evaluate({ ...base, ae_serious: '0' });
    expect(mild.items[AE_ITEMS.criteria]!.visible).toBe(false);
    expect(mild.items[AE_ITEMS.aware]!.visible).toBe(false);
    expect(mild.errors).toEqual([]);

    const serious = evaluate({ ...base, ae_serious: '1' });
    expect(serious.items[AE_ITEMS.criteria]).toMatchObject({ visible: true, required: true });
    expect(serious.items[AE_ITEMS.aware]).toMatchObject({ visible: true, required: true });
    expect(serious.errors.map((e) => e.item).sort()).toEqual([AE_ITEMS.aware, AE_ITEMS.criteria]);
    const complete = evaluate({ ...base, ae_serious: '1', ae_criteria: ['hosp'], ae_aware: '2026-11-21 09:30' });
    expect(complete.errors).toEqual([]);
  });
});

describe('the 24-hour clock', () => {
  it('safety: the deadline is awareness + 24 hours', () => {
    expect(deadline.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(SAE_REPORT_WINDOW_MS).toBe(24 * HOUR);
  });

  it.each([
    [0, 'running', '剩余 24小时0分'],
    [1, 'running', '剩余 24小时0分'],
    [30 * MIN, 'running', '剩余 23小时30分'],
    [23 * HOUR + 59 * MIN, 'running', '剩余 0小时1分'],
    [24 * HOUR - 1, 'running', '剩余 0小时1分'],
    [24 * HOUR, 'overdue', '已超时 0小时'],
    [24 * HOUR + 59 * MIN, 'overdue', '已超时 0小时'],
    [25 * HOUR, 'overdue', '已超时 1小时'],
    [48 * HOUR + 30 * MIN, 'overdue', '已超时 24小时'],
  ] as const)('safety: %d ms after awareness the clock is %s (%s)', (after, state, text) => {
    const clock = saeClock(deadline, new Date(aware.getTime() + after));
    expect(clock.state).toBe(state);
    expect(clock.text).toBe(text);
    expect(clock.remainingMs).toBe(24 * HOUR - after);
  });

  it('safety: a submitted report is on time before the deadline and late at or after it', () => {
    expect(saeClock(deadline, new Date(0), new Date(deadline.getTime() - 1))).toMatchObject({
      state: 'submitted',
      text: '已按时提交',
    });
    expect(saeClock(deadline, new Date(0), deadline)).toMatchObject({ state: 'submittedLate', text: '超时提交' });
  });

  it('safety: property — running exactly while now is before the deadline; the text never reads 0小时0分 while running', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10 * 24 * HOUR, max: 10 * 24 * HOUR }), (offset) => {
        const now = new Date(deadline.getTime() + offset);
        const clock = saeClock(deadline, now);
        expect(clock.state).toBe(offset < 0 ? 'running' : 'overdue');
        expect(clock.remainingMs + offset).toBe(0);
        if (clock.state === 'running') {
          expect(clock.text).not.toBe('剩余 0小时0分');
          const [, h, m] = /^剩余 (\d+)小时(\d+)分$/.exec(clock.text)!;
          const shownMs = (Number(h) * 60 + Number(m)) * MIN;
          // Shown rounded up to the minute: never less than what is left, never a minute more.
          expect(shownMs).toBeGreaterThanOrEqual(clock.remainingMs);
          expect(shownMs - clock.remainingMs).toBeLessThan(MIN);
          expect(Number(m)).toBeLessThan(60);
        } else {
          const [, h] = /^已超时 (\d+)小时$/.exec(clock.text)!;
          expect(Number(h)).toBe(Math.floor(offset / HOUR));
        }
      }),
    );
  });

  it('safety: property — the clock is monotone: later never shows more time left', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * 24 * HOUR }), fc.integer({ min: 0, max: 3 * 24 * HOUR }), (a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        const c1 = saeClock(deadline, new Date(aware.getTime() + early));
        const c2 = saeClock(deadline, new Date(aware.getTime() + late));
        expect(c2.remainingMs).toBeLessThanOrEqual(c1.remainingMs);
        if (c1.state === 'overdue') expect(c2.state).toBe('overdue');
      }),
    );
  });
});

describe('reading an AE record', () => {
  it('safety: not serious unless 是; serious with the awareness time read in the study zone', () => {
    expect(aeSeriousness({ ae_serious: '0', ae_aware: '2026-11-21 09:30' }, 'Asia/Shanghai')).toEqual({
      serious: false,
    });
    expect(aeSeriousness({}, 'Asia/Shanghai')).toEqual({ serious: false });
    expect(aeSeriousness({ ae_serious: '1', ae_aware: '2026-11-21 09:30' }, 'Asia/Shanghai')).toEqual({
      serious: true,
      awareAt: new Date('2026-11-21T01:30:00Z'),
    });
    expect(aeSeriousness({ ae_serious: '1', ae_aware: '2026-11-21 09:30:15' }, 'UTC')).toEqual({
      serious: true,
      awareAt: new Date('2026-11-21T09:30:15Z'),
    });
  });

  it.each([[undefined], [''], ['2026-11-21'], ['2026-UK-UK'], ['not a time']])(
    'safety: serious with the awareness time %s has no clock yet',
    (text) => {
      expect(aeSeriousness({ ae_serious: '1', ae_aware: text }, 'Asia/Shanghai')).toEqual({
        serious: true,
        awareAt: null,
      });
    },
  );
});
