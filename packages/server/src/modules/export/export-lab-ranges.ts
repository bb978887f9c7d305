import { sql } from 'drizzle-orm';
import type { CrfDefinition, CrfNode, ItemOption } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { crfDataRecords } from '../../db/schema/index.js';

/**
 * 参考范围 (issue 37): the items some live record of the study was judged by a site's range for, per form: they get the
 * `<item>_lower`/`<item>_upper` columns (filled for every record with the range it was judged by, the site's or the
 * item's own). An item only ever judged by its own range gets none: a study without site ranges exports as before.
 * The study's, not the scope's, so every export of the study has the same columns (as the missing-data marks').
 */
export async function rangedItemsOf(ctx: AppContext, studyId: number): Promise<Map<number, Set<string>>> {
  const rows = await queryRows<{ crf_id: number; item: string }>(
    ctx.db,
    sql`select distinct r.crf_id, u.key as item from ${crfDataRecords} r, jsonb_each(r.lab_ranges) u
      where r.study_id = ${studyId} and r.deleted_at is null and r.lab_ranges <> '{}'::jsonb
        and u.value ->> 'source' = 'site'`,
  );
  const out = new Map<number, Set<string>>();
  for (const r of rows) out.set(Number(r.crf_id), (out.get(Number(r.crf_id)) ?? new Set()).add(r.item));
  return out;
}

const optionMaps = new WeakMap<CrfDefinition, Map<string, ItemOption>>();

/** An item's option by name in a definition (the export converts a range to the item's unit with it). */
export function optionOfItem(definition: CrfDefinition | undefined): (item: string) => ItemOption | undefined {
  if (!definition) return () => undefined;
  let map = optionMaps.get(definition);
  if (!map) {
    const found = new Map<string, ItemOption>();
    const walk = (nodes: readonly CrfNode[]) => {
      for (const node of nodes) {
        if (node.name) found.set(node.name, node.option);
        walk(node.children);
      }
    };
    walk(definition.children);
    optionMaps.set(definition, (map = found));
  }
  return (item) => map.get(item);
}
