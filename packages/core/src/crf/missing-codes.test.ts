import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValueType, type CrfDefinition } from './crf-definition.schema.js';
import { evaluateForm, getCompiledForm, type EvaluationContext } from './evaluate-form.js';
import {
  changedMarkNames,
  DEFAULT_MISSING_CODES,
  missingCodesSchema,
  missingMarkIssues,
  MISSING_MSG,
  recordedValue,
} from './missing-codes.js';
import { arbitraryForm } from './test/arbitrary-form.js';
import { baselineCrf, deepFreeze } from './test/fixtures.js';

const context: EvaluationContext = { now: new Date(Date.UTC(2024, 5, 15, 2, 0, 0)), gender: 'male' };
const definition = deepFreeze(baselineCrf());
const complete = { sex: '1', birth: '1980-03-01', visit_date: '2024-06-15', weight: '70', sbp: '120', dbp: '80' };

const evaluate = (values: Record<string, unknown>, missing: Record<string, string>, def: CrfDefinition = definition) =>
  evaluateForm(def, deepFreeze({ ...values }), { ...context, missing: deepFreeze({ ...missing }) });

describe('缺失原因 in the engine', () => {
  it('a required item marked with a code is complete: no error, no value, the mark kept', () => {
    const { weight: _weight, ...rest } = complete;
    expect(evaluate(rest, {}).errors.map((e) => e.item)).toEqual(['weight']);
    const state = evaluate(rest, { weight: 'ND' });
    expect(state.errors).toEqual([]);
    expect(state.valid).toBe(true);
    expect(state.items.weight).toMatchObject({ required: true, missing: 'ND', value: undefined, errors: [] });
    expect(state.missing).toEqual({ weight: 'ND' });
  });

  it('a marked item holds no value and no range, type or cross-field check fires on it', () => {
    const state = evaluate(
      { ...complete, weight: '999', sbp: '70', dbp: '80', hb: '300' },
      {
        weight: 'NA',
        sbp: 'UNK',
        hb: 'ND',
      },
    );
    expect(state.errors).toEqual([]);
    expect(state.values).not.toHaveProperty('weight');
    expect(state.values).not.toHaveProperty('sbp');
    expect(state.items.hb!.range).toBeNull();
    // bmi reads a blank weight: no result.
    expect(state.values).not.toHaveProperty('bmi');
  });

  it('a hidden item loses its mark as it loses its value; a list group is marked whole', () => {
    const state = evaluate({ ...complete, meds: [{ dose: '5' }] }, { pregnant: 'NA', meds: 'NA' });
    expect(state.items.pregnant!.visible).toBe(false);
    expect(state.missing).toEqual({ meds: 'NA' });
    expect(state.values.meds).toBeUndefined();
    expect(state.errors).toEqual([]);
  });

  it('re-evaluating with the previous state follows a mark set or cleared without a value change', () => {
    const { weight: _weight, ...rest } = complete;
    const first = evaluate(rest, {});
    const marked = evaluateForm(
      definition,
      rest,
      { ...context, missing: { weight: 'ND' } },
      {
        previous: first,
        changed: [],
      },
    );
    expect(marked.errors).toEqual([]);
    const cleared = evaluateForm(definition, rest, context, { previous: marked, changed: [] });
    expect(cleared.errors.map((e) => e.item)).toEqual(['weight']);
  });

  it('property: for any form and any marked items, marked items raise nothing and hold no value', () => {
    fc.assert(
      fc.property(
        arbitraryForm({ expressions: true }),
        fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 12 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        (form, raw, picks) => {
          const names = getCompiledForm(form)
            .nodes.filter((n) => !n.rowOwner && n.node.name && isValueType(n.node.type))
            .map((n) => n.node.name);
          const values = Object.fromEntries(names.map((name, i) => [name, raw[i % Math.max(raw.length, 1)] ?? '']));
          const missing = Object.fromEntries(names.filter((_, i) => picks[i]).map((name) => [name, 'ND']));
          const state = evaluateForm(form, values, { ...context, missing });
          for (const name of Object.keys(missing)) {
            expect(state.errors.filter((e) => e.item === name && e.container === undefined)).toEqual([]);
            expect(state.values).not.toHaveProperty(name);
            const shown = state.items[getCompiledForm(form).byName.get(name)!.key]!.visible;
            expect(state.missing[name]).toBe(shown ? 'ND' : undefined);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('缺失原因 at a save', () => {
  const issues = (values: Record<string, unknown>, missing: Record<string, string>, stored = {}) =>
    missingMarkIssues(definition, values, missing, stored, DEFAULT_MISSING_CODES, evaluate(values, missing)).map(
      (i) => `${i.item}: ${i.message}`,
    );

  it('refuses a value sent for a marked item, naming it, and a code the study does not have', () => {
    expect(issues({ ...complete, weight: '70' }, { weight: 'ND' })).toEqual([
      `weight: ${MISSING_MSG.valueGiven('体重')}`,
    ]);
    expect(issues(complete, { height: 'XX' })).toEqual([`height: ${MISSING_MSG.unknownCode('XX')}`]);
    expect(issues(complete, { height: 'ND' })).toEqual([]);
  });

  it('refuses row cells, titles and unknown names; keeps a removed code already stored', () => {
    expect(issues(complete, { drug: 'ND', nope: 'ND', demo: 'ND' })).toEqual([
      `drug: ${MISSING_MSG.notMarkable('drug')}`,
      `nope: ${MISSING_MSG.notMarkable('nope')}`,
      `demo: ${MISSING_MSG.notMarkable('demo')}`,
    ]);
    expect(issues(complete, { height: 'OLD' }, { height: 'OLD' })).toEqual([]);
  });

  it('refuses a new mark on a hidden item', () => {
    expect(issues(complete, { pregnant: 'NA' })).toEqual([`pregnant: ${MISSING_MSG.hidden('是否妊娠')}`]);
    expect(issues(complete, { pregnant: 'NA' }, { pregnant: 'NA' })).toEqual([]);
  });

  it('the trail shows a mark as [缺失:code]; changed marks are set, changed or cleared ones', () => {
    expect(recordedValue({ a: '1' }, { b: 'ND' }, 'b')).toBe('[缺失:ND]');
    expect(recordedValue({ a: '1' }, { b: 'ND' }, 'a')).toBe('1');
    expect(recordedValue({}, {}, 'a')).toBeNull();
    expect(changedMarkNames({ a: 'ND', b: 'NA', c: 'UNK' }, { a: 'ND', b: 'UNK', d: 'ND' }).sort()).toEqual([
      'b',
      'c',
      'd',
    ]);
  });
});

describe('a study’s codes', () => {
  it('take 1–10 upper-case letters, digits or _, labels of 1–20 characters, each code once', () => {
    expect(missingCodesSchema.safeParse(DEFAULT_MISSING_CODES).success).toBe(true);
    for (const bad of [
      [],
      [{ code: 'nd', label: '未查' }],
      [{ code: 'ABCDEFGHIJK', label: '未查' }],
      [{ code: 'ND', label: '' }],
      [{ code: 'ND', label: '一'.repeat(21) }],
      [
        { code: 'ND', label: '未查' },
        { code: 'ND', label: '又一个' },
      ],
    ]) {
      expect(missingCodesSchema.safeParse(bad).success).toBe(false);
    }
  });
});
