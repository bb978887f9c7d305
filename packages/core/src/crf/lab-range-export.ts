import { statName, type ExportVariable } from '../export.js';
import type { CrfNode, ItemOption } from './crf-definition.schema.js';
import { overrideInUnit, type UsedRange } from './lab-ranges.js';
import { unitsOf } from './options.js';

/**
 * 参考范围 (issue 37) in the export: the range each value was judged by at its last save (crf_data_records.lab_ranges),
 * as two number columns `<item>_lower` and `<item>_upper` right after the item's own, in the item's unit (its first):
 * numbers a statistics package reads, and a site range in another unit is converted as the ↑/↓ was.
 */

export const rangeLowerKey = (item: string) => `${item}_lower`;
export const rangeUpperKey = (item: string) => `${item}_upper`;

/** The form's export variables with `<item>_lower`/`<item>_upper` after each item some record holds a range for. */
export function withRangeVariables(
  variables: readonly ExportVariable[],
  ranged: ReadonlySet<string>,
): ExportVariable[] {
  if (ranged.size === 0) return [...variables];
  return variables.flatMap((v) => {
    if (!ranged.has(v.item)) return [v];
    const extra = (
      [
        [rangeLowerKey(v.item), '参考范围下限'],
        [rangeUpperKey(v.item), '参考范围上限'],
      ] as const
    ).map(([key, word]): ExportVariable => {
      const title = `${v.node.title || v.item}（${word}）`;
      const node: CrfNode = { name: key, title, type: 'real', option: {}, children: [] };
      return { name: statName(key), item: key, title, kind: 'number', choices: [], unit: v.unit, node };
    });
    return [v, ...extra];
  });
}

/** A record's values with the range of each of its items beside them, in the item's first unit. */
export function valuesWithRanges(
  values: Readonly<Record<string, unknown>>,
  used: Readonly<Record<string, unknown>> | null | undefined,
  optionOf: (item: string) => ItemOption | undefined,
): Record<string, unknown> {
  const entries = Object.entries(used ?? {});
  if (entries.length === 0) return values as Record<string, unknown>;
  const out: Record<string, unknown> = { ...values };
  for (const [item, raw] of entries) {
    const r = raw as Partial<UsedRange> | null;
    const option = optionOf(item);
    if (!r || !option) continue;
    const range = overrideInUnit(
      { lower: r.lower ?? null, upper: r.upper ?? null, unit: r.unit ?? null },
      option,
      unitsOf(option)[0] ?? null,
    );
    // A range whose unit does not convert to the item's is left blank rather than written in another unit.
    if (!range) continue;
    if (range.min !== null) out[rangeLowerKey(item)] = range.min;
    if (range.max !== null) out[rangeUpperKey(item)] = range.max;
  }
  return out;
}
