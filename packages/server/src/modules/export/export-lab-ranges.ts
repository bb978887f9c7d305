import { and, eq, isNull, sql } from 'drizzle-orm';
import type { CrfDefinition, CrfNode, ItemOption } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords } from '../../db/schema/index.js';

/**
 * 参考范围 (issue 37): the items some live record of the study holds a judged range for, per form: they get the
 * `<item>_lower`/`<item>_upper` columns. The study's, not the scope's, so every export of the study has the same
 * columns (as the missing-data marks' columns).
 */
export async function rangedItemsOf(ctx: AppContext, studyId: number): Promise<Map<number, Set<string>>> {
  const rows = await ctx.db
    .selectDistinct({ crfId: crfDataRecords.crfId, item: sql<string>`jsonb_object_keys(${crfDataRecords.labRanges})` })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.studyId, studyId),
        isNull(crfDataRecords.deletedAt),
        sql`${crfDataRecords.labRanges} <> '{}'::jsonb`,
      ),
    );
  const out = new Map<number, Set<string>>();
  for (const r of rows) out.set(r.crfId, (out.get(r.crfId) ?? new Set()).add(r.item));
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
