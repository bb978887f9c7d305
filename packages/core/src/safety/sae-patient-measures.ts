import type { CrfNode } from '../crf/crf-definition.schema.js';
import { unitKey } from '../crf/evaluate-form.js';
import { toNumber } from '../crf/options.js';
import { convertQuantity, itemUnit } from '../crf/units.js';

/**
 * 身高、体重 on the SAE report (issue 37): the NMPA form asks 身高(cm) and 体重(kg). The platform has no fixed
 * height or weight item, so the report reads the study's own, by a rule that never guesses:
 *  - an item is the height when its variable name is `height` or its title is 身高 (a unit in brackets after it,
 *    身高（cm）, is allowed); the weight when its name is `weight` or its title is 体重; and it is a number item;
 *  - its value is a number in a known unit: the item's unit (its selector's choice, else its first), else the one in
 *    the title's brackets; converted to cm or kg (m, mm, in; g, 斤, lb). No unit, or one that does not convert: blank;
 *  - the server takes the latest saved of the patient's live records holding such a value (any form but the AE log).
 */

export type BodyMeasure = 'height' | 'weight';

const NUMBER_TYPES = new Set<CrfNode['type']>(['int', 'real', 'number']);
const MEASURES: Record<BodyMeasure, { name: string; title: string; unit: string }> = {
  height: { name: 'height', title: '身高', unit: 'cm' },
  weight: { name: 'weight', title: '体重', unit: 'kg' },
};
/** A title with its unit in brackets: 身高（cm）, 体重(kg). */
const TITLE_UNIT = /^(.+?)\s*[（(]\s*([^()（）]+?)\s*[)）]$/;

function titleParts(node: CrfNode): { title: string; unit: string } {
  const raw = (node.title ?? '').trim();
  const m = TITLE_UNIT.exec(raw);
  return m ? { title: m[1]!, unit: m[2]! } : { title: raw, unit: '' };
}

/** Which body measure an item is, by the rule above; null for every other item. */
export function bodyMeasureOf(node: CrfNode): BodyMeasure | null {
  if (!NUMBER_TYPES.has(node.type) || !node.name) return null;
  const { title } = titleParts(node);
  for (const measure of ['height', 'weight'] as const) {
    const m = MEASURES[measure];
    if (node.name.toLowerCase() === m.name || title === m.title) return measure;
  }
  return null;
}

/** An item's value as the form's cm or kg (text, as a report prints it), or null when it has none or no known unit. */
export function bodyMeasureValue(
  node: CrfNode,
  measure: BodyMeasure,
  values: Readonly<Record<string, unknown>>,
): string | null {
  const raw = values[node.name];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? toNumber(raw) : null;
  if (n === null || !Number.isFinite(n)) return null;
  const unit = itemUnit(node.option, values[unitKey(node.name)]) || titleParts(node).unit;
  if (!unit) return null;
  const converted = convertQuantity(n, unit, MEASURES[measure].unit);
  return converted === null ? null : String(converted);
}
