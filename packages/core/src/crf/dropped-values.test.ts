import { describe, expect, it } from 'vitest';
import { ADDITION_VALUE_MSG, HIDDEN_VALUE_MSG, valuesDroppedByRules } from './dropped-values.js';
import { evaluateForm, type EvaluationContext } from './evaluate-form.js';
import { baselineCrf, deepFreeze } from './test/fixtures.js';

const context: EvaluationContext = { now: new Date(Date.UTC(2024, 5, 15, 2, 0, 0)), gender: 'male' };
const definition = deepFreeze(baselineCrf());
const base = { sex: '1', birth: '1980-03-01', visit_date: '2024-06-15', weight: '70' };

const dropped = (sent: Record<string, unknown>, stored: Record<string, unknown> = {}) =>
  valuesDroppedByRules(definition, sent, stored, evaluateForm(definition, sent, context)).map((i) => ({
    item: i.item,
    container: i.container,
    row: i.row,
    message: i.message,
  }));

describe('valuesDroppedByRules', () => {
  it('names a new value for a hidden item, and nothing when every value given is stored', () => {
    expect(dropped({ ...base, pregnant: '0' })).toEqual([
      { item: 'pregnant', container: undefined, row: undefined, message: HIDDEN_VALUE_MSG },
    ]);
    expect(dropped({ ...base, sex: '2', pregnant: '0' })).toEqual([]);
  });

  it("a stored value the writer's other change hides is not the writer's: it is cleared, not refused", () => {
    const stored = { ...base, sex: '2', pregnant: '1', lmp: '2024-05' };
    expect(dropped({ ...stored, sex: '1' }, stored)).toEqual([]);
    expect(dropped({ ...stored, sex: '1', pregnant: '0' }, stored)).toEqual([
      { item: 'pregnant', container: undefined, row: undefined, message: HIDDEN_VALUE_MSG },
    ]);
  });

  it('an addition text no chosen option asks for, and a hidden cell of a list-group row', () => {
    expect(dropped({ ...base, disease: ['1'], disease_addition: '痛风' })).toEqual([
      { item: 'disease_addition', container: undefined, row: undefined, message: ADDITION_VALUE_MSG },
    ]);
    expect(dropped({ ...base, disease: ['99'], disease_addition: '痛风' })).toEqual([]);
    const meds = [
      { drug: '阿司匹林', ongoing: '0', stop: '2024-01-01' },
      { drug: '二甲双胍', ongoing: '1', stop: '2024-02-01' },
    ];
    expect(dropped({ ...base, meds })).toEqual([
      { item: 'stop', container: 'meds', row: 1, message: HIDDEN_VALUE_MSG },
    ]);
  });
});
