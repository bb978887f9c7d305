import type { CrfNode, ItemOption } from './crf-definition.schema.js';
import { choicesOf, indexList, isOn, splitList } from './options.js';
import { readChoiceList } from './value-shapes.js';

/** One trigger: the referenced item and the option indexes (0-based into its optionsValue) that show this item. */
export interface Trigger {
  name: string;
  indexes: number[];
}

/**
 * trig + tindex name one item and a comma list of indexes. trigex is a comma list of pairs, written
 * "name:index" or as alternating "name,index" (both appear in legacy files). Pairs naming the same
 * item merge. Returns the two conditions separately: each must hold, and within trigex any pair
 * may match (docs/crf-format.md).
 */
export function parseTriggers(option: ItemOption): { trig: Trigger | null; trigex: Trigger[] } {
  const trig =
    option.trig && option.trig.trim() !== '' ? { name: option.trig.trim(), indexes: indexList(option.tindex) } : null;
  const trigex: Trigger[] = [];
  const parts = splitList(option.trigex).filter((p) => p !== '');
  for (let i = 0; i < parts.length; i += 1) {
    let name: string;
    let index: string;
    const piece = parts[i]!;
    if (piece.includes(':')) {
      [name = '', index = ''] = piece.split(':').map((s) => s.trim());
    } else {
      name = piece;
      index = parts[i + 1] ?? '';
      i += 1;
    }
    const existing = trigex.find((t) => t.name === name);
    const n = /^\d+$/.test(index) ? Number(index) : Number.NaN;
    if (existing) existing.indexes.push(n);
    else trigex.push({ name, indexes: [n] });
  }
  return { trig, trigex };
}

export function triggerNames(option: ItemOption): string[] {
  const { trig, trigex } = parseTriggers(option);
  return [...(trig ? [trig.name] : []), ...trigex.map((t) => t.name)];
}

/** The option indexes chosen in a choice item's value (radio, select, checkbox, multi-select). */
export function chosenIndexes(source: CrfNode, value: unknown): number[] {
  const chosen = readChoiceList(value);
  if (chosen.length === 0) return [];
  return choicesOf(source.option)
    .filter((c) => chosen.includes(c.value))
    .map((c) => c.index);
}

export type TriggerLookup = (name: string) => { node: CrfNode; value: unknown } | null;

export function triggerHolds(trigger: Trigger, lookup: TriggerLookup): boolean {
  const source = lookup(trigger.name);
  if (!source) return false;
  const chosen = chosenIndexes(source.node, source.value);
  return chosen.some((index) => trigger.indexes.includes(index));
}

/**
 * forms §4: an item with trig/trigex shows only while the referenced item's chosen option is one
 * of the listed indexes, and never when it is marked hidden; an item with no trigger shows.
 */
export function isShownBySpecRules(option: ItemOption, lookup: TriggerLookup): boolean {
  if (isOn(option.hidden)) return false;
  const { trig, trigex } = parseTriggers(option);
  if (trig && !triggerHolds(trig, lookup)) return false;
  if (trigex.length > 0 && !trigex.some((t) => triggerHolds(t, lookup))) return false;
  return true;
}

/** Whether the page shows the item at all (REDCap @HIDDEN items are applicable but not displayed). */
export function isDisplayed(node: Pick<CrfNode, 'option'>): boolean {
  return !isOn(node.option.notDisplayed);
}
