import type { CrfNode } from './crf-definition.schema.js';
import { choicesOf } from './options.js';
import { readRows } from './value-shapes.js';

/**
 * Group info (forms §3, WID-09): an item inside a list group or table, named by the group and the child, and
 * `valueIndex`, the option index (0-based, in optionsValue order, the index trig/tindex use) of the value the
 * child holds in one row. null when the child has no options, holds no value, holds several (checkbox,
 * multi-select) or a value outside its options. The row itself is the query entity's groupIndex.
 */
export interface GroupInfo {
  groupName: string;
  name: string;
  valueIndex: number | null;
}

/** The option index of a single stored choice among the item's options, or null. */
export function optionIndexOf(node: CrfNode, value: unknown): number | null {
  if (value === undefined || value === null || value === '' || Array.isArray(value)) return null;
  if (node.type === 'checkbox' || node.type === 'multiSelect') return null;
  const text = String(value);
  return choicesOf(node.option).find((choice) => choice.value === text)?.index ?? null;
}

/** Group info of `name` in row `rowIndex` of `group`'s stored rows. */
export function groupInfoOf(group: CrfNode, name: string, groupValue: unknown, rowIndex: number): GroupInfo {
  const child = group.children.find((c) => c.name === name);
  const row = readRows(groupValue)[rowIndex];
  return {
    groupName: group.name,
    name,
    valueIndex: child && row ? optionIndexOf(child, row[name]) : null,
  };
}
