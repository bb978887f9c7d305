import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfNode, ItemOption } from './crf-definition.schema.js';
import { evaluateExpression, truthy } from './expression/index.js';
import { item } from './test/fixtures.js';
import { additionCondition, showCondition, showIfWithoutTriggers, triggerCondition } from './trigger-expression.js';
import { isShownBySpecRules } from './visibility.js';

const sex = item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' });
const history = item('checkbox', 'history', '既往史', {
  optionsValue: 'htn,dm,other',
  optionsText: '高血压,糖尿病,其他',
});
const stage = item('select', 'stage', '分期', { optionsValue: '0,1,2,3', optionsText: '0,Ⅰ,Ⅱ,Ⅲ' });
const sources = [sex, history, stage];
const nodeOf = (name: string) => sources.find((n) => n.name === name);

describe('native skip rules as expressions', () => {
  it('writes trig/tindex and trigex as comparisons with the options’ codes', () => {
    expect(triggerCondition({ trig: 'sex', tindex: '1' }, nodeOf)).toBe('sex == "2"');
    expect(triggerCondition({ trigex: 'history:1,stage:2,stage:3' }, nodeOf)).toBe(
      'history == "dm" or (stage == "2" or stage == "3")',
    );
    expect(triggerCondition({ trig: 'sex', tindex: '0', trigex: 'history:2' }, nodeOf)).toBe(
      'sex == "1" and history == "other"',
    );
    // An index without an option, or an item that is not there, never shows the item.
    expect(triggerCondition({ trig: 'sex', tindex: '5' }, nodeOf)).toBe('false');
    expect(triggerCondition({ trig: 'nobody', tindex: '0' }, nodeOf)).toBe('false');
    expect(triggerCondition({ showIf: 'sex == "1"' }, nodeOf)).toBeNull();
    expect(
      additionCondition(item('checkbox', 'h', 'h', { optionsValue: 'a,b', optionsText: 'A,B', additionIndex: '1' })),
    ).toBe('h == "b"');
  });

  it('the expression shows the item exactly when the engine’s trigger rule does, blank items included', () => {
    const trigger = fc.record({
      source: fc.constantFrom(...sources),
      indexes: fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
    });
    const valueOf = (node: CrfNode) => {
      const codes = (node.option.optionsValue ?? '').split(',');
      // A checkbox with nothing ticked is blank (an empty list), as is a choice never made.
      return node.type === 'checkbox'
        ? fc.option(fc.subarray(codes), { nil: undefined })
        : fc.option(fc.constantFrom(...codes), { nil: undefined });
    };
    fc.assert(
      fc.property(
        fc.option(trigger, { nil: null }),
        fc.array(trigger, { maxLength: 3 }),
        valueOf(sex),
        valueOf(history),
        valueOf(stage),
        (trig, trigex, sexValue, historyValue, stageValue) => {
          fc.pre(trig !== null || trigex.length > 0);
          const option: ItemOption = {};
          if (trig) Object.assign(option, { trig: trig.source.name, tindex: trig.indexes.join(',') });
          if (trigex.length > 0) {
            option.trigex = trigex.flatMap((t) => t.indexes.map((i) => `${t.source.name}:${i}`)).join(',');
          }
          const values: Record<string, unknown> = { sex: sexValue, history: historyValue, stage: stageValue };
          const engine = isShownBySpecRules(option, (name) => {
            const node = nodeOf(name);
            return node ? { node, value: values[name] } : null;
          });
          const expression = triggerCondition(option, nodeOf)!;
          expect(truthy(evaluateExpression(expression, values)), expression).toBe(engine);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a show condition is (showIf) and (triggers), and the showIf comes off it again', () => {
    const option: ItemOption = { showIf: 'age >= 18 or age < 2', trig: 'sex', tindex: '0' };
    const whole = showCondition(option, nodeOf)!;
    expect(whole).toBe('(age >= 18 or age < 2) and (sex == "1")');
    const triggers = triggerCondition(option, nodeOf);
    expect(showIfWithoutTriggers(whole, triggers)).toBe('age >= 18 or age < 2');
    expect(showIfWithoutTriggers(showCondition({ trig: 'sex', tindex: '0' }, nodeOf)!, triggers)).toBeUndefined();
    expect(showCondition({ showIf: 'age > 1' }, nodeOf)).toBe('age > 1');
    expect(showIfWithoutTriggers('age > 1', null)).toBe('age > 1');
    // Not written by showCondition (edited by hand): the whole condition stands.
    expect(showIfWithoutTriggers('(a > 1) or (b > 2) and (sex == "1")', triggers)).toBeNull();
    expect(showIfWithoutTriggers('x == 1', triggers)).toBeNull();
  });
});
