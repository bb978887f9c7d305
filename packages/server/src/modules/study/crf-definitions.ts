import { and, eq, or } from 'drizzle-orm';
import { nodesByName, type CrfDefinition, type CrfNode } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { crfVersions } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';

export const versionKey = (crfId: number, version: number) => `${crfId}:${version}`;

const cache = new Map<string, CrfDefinition>();
const CACHE_LIMIT = 500;

function remember(key: string, definition: CrfDefinition) {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, definition);
}

/** Published versions never change once stored, so their parsed definitions can be kept. */
export async function definitionOf(db: Db, crfId: number, version: number): Promise<CrfDefinition> {
  const found = await definitionsOf(db, [{ crfId, version }]);
  const definition = found.get(versionKey(crfId, version));
  if (!definition) throw AppError.notFound('crf.version_not_found', 'CRF版本不存在');
  return definition;
}

/**
 * The definitions of several CRF versions in one statement (those not cached yet), keyed by
 * `versionKey`: a page of audit rows or queries reads the forms it names without a query per row.
 */
export async function definitionsOf(
  db: Db,
  wanted: ReadonlyArray<{ crfId: number; version: number }>,
): Promise<Map<string, CrfDefinition>> {
  const out = new Map<string, CrfDefinition>();
  const missing = new Map<string, { crfId: number; version: number }>();
  for (const w of wanted) {
    const key = versionKey(w.crfId, w.version);
    const cached = cache.get(key);
    if (cached) out.set(key, cached);
    else missing.set(key, w);
  }
  if (missing.size > 0) {
    const rows = await db
      .select({
        crfId: crfVersions.crfId,
        version: crfVersions.version,
        definition: crfVersions.definition,
        draft: crfVersions.draft,
      })
      .from(crfVersions)
      .where(
        or(
          ...[...missing.values()].map((w) => and(eq(crfVersions.crfId, w.crfId), eq(crfVersions.version, w.version))),
        ),
      );
    for (const row of rows) {
      const key = versionKey(row.crfId, row.version);
      const definition = row.definition as CrfDefinition;
      // A draft changes (an upload replaces it) and goes (discarded): only published versions are kept.
      if (!row.draft) remember(key, definition);
      out.set(key, definition);
    }
  }
  return out;
}

const nodeMaps = new WeakMap<CrfDefinition, Map<string, CrfNode>>();

/** A definition's named nodes (cached with the definition object). */
export function nodesOf(definition: CrfDefinition): ReadonlyMap<string, CrfNode> {
  let nodes = nodeMaps.get(definition);
  if (!nodes) {
    nodes = nodesByName(definition);
    nodeMaps.set(definition, nodes);
  }
  return nodes;
}
