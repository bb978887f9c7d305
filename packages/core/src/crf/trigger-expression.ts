import type { CrfNode, ItemOption } from './crf-definition.schema.js';
import { parseExpression, printExpression, type Expr } from './expression/index.js';
import { choicesOf, indexList } from './options.js';
import { parseTriggers } from './visibility.js';

/**
 * The native skip rules (trig/tindex, trigex) and an option's addition box written in our expression language,
 * for files whose readers know only expressions (ODM ConditionDefs). A trigger holds while the named item's
 * chosen option is one of the listed indexes: `name == "code"` for each listed option's code, joined with `or`
 * (a checkbox equals each code it holds; a blank item decides nothing, which a condition reads as hidden, as a
 * trigger on a blank item does). isShownBySpecRules stays the rule the engine runs; this is its translation.
 */

const at = 0;
const or = (left: Expr, right: Expr): Expr => ({ kind: 'logical', op: 'or', left, right, start: at });
const and = (left: Expr, right: Expr): Expr => ({ kind: 'logical', op: 'and', left, right, start: at });
const never: Expr = { kind: 'boolean', value: false, start: at };

/** The item `name` has one of the options at these indexes chosen; false when none of them exists. */
export function chosenOptionCondition(name: string, source: CrfNode | undefined, indexes: readonly number[]): Expr {
  const choices = source ? choicesOf(source.option) : [];
  const tests = indexes.flatMap((i): Expr[] => {
    const code = choices[i]?.value;
    if (code === undefined) return [];
    return [
      {
        kind: 'binary',
        op: '==',
        left: { kind: 'identifier', name, start: at },
        right: { kind: 'string', value: code, start: at },
        start: at,
      },
    ];
  });
  return tests.length === 0 ? never : tests.reduce(or);
}

/** An item's trig and trigex as one condition (both must hold; within trigex any pair), or null without them. */
export function triggerCondition(option: ItemOption, nodeOf: (name: string) => CrfNode | undefined): string | null {
  const { trig, trigex } = parseTriggers(option);
  const parts: Expr[] = [];
  if (trig) parts.push(chosenOptionCondition(trig.name, nodeOf(trig.name), trig.indexes));
  if (trigex.length > 0) {
    parts.push(trigex.map((t) => chosenOptionCondition(t.name, nodeOf(t.name), t.indexes)).reduce(or));
  }
  return parts.length === 0 ? null : printExpression(parts.reduce(and));
}

/** When the addition box of a choice item shows: one of its additionIndex options is chosen. */
export function additionCondition(node: CrfNode): string {
  return printExpression(chosenOptionCondition(node.name, node, indexList(node.option.additionIndex)));
}

/**
 * The whole show condition of an item: its showIf and its triggers. Written `(showIf) and (triggers)` so that
 * a reader holding the triggers already (our import, from the item's own option) can take them off again:
 * see showIfWithoutTriggers.
 */
export function showCondition(option: ItemOption, nodeOf: (name: string) => CrfNode | undefined): string | null {
  const triggers = triggerCondition(option, nodeOf);
  const own = typeof option.showIf === 'string' && option.showIf.trim() !== '' ? option.showIf : null;
  if (own === null) return triggers;
  return triggers === null ? own : `(${own}) and (${triggers})`;
}

/**
 * The showIf part of a show condition written by showCondition, given the triggers the item keeps in its option:
 * undefined when the condition is the triggers alone, null when it was not written that way (then the whole
 * condition stands, which only repeats the triggers).
 */
export function showIfWithoutTriggers(condition: string, triggers: string | null): string | undefined | null {
  if (triggers === null) return condition;
  if (condition === triggers) return undefined;
  const tail = `) and (${triggers})`;
  if (!condition.startsWith('(') || !condition.endsWith(tail)) return null;
  const own = condition.slice(1, -tail.length);
  try {
    // `(a) or (b) and (…)` ends the same way: the part must be an expression of its own.
    parseExpression(own);
    return own;
  } catch {
    return null;
  }
}
