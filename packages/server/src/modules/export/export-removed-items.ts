import { and, desc, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import {
  isContainerType,
  isIdentifierItem,
  isValueType,
  itemLabel,
  knownValueKeys,
  type CrfDefinition,
  type CrfNode,
  type ExportState,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, crfVersions, doubts, signatures, subjectRecords, subjects } from '../../db/schema/index.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';

// Issue 36: a CRF amendment never deletes a removed item's value; it stays in the record's stored values (inert, not
// shown) and so stays exportable. An export adds, after a form's current columns, the items the current version no
// longer has that still hold a value in a record the export holds: each as its newest older version defines it
// (value texts, choice codes), its label marked （已删除）. Every format reads the plan's definitions and variables,
// so all of them hold the same columns. Nothing is added when no exported record holds such a value.

/** The mark after a removed item's label in an export's headers, labels and dictionaries. */
export const REMOVED_ITEM_MARK = '（已删除）';

/** The form's page logic an exported removed item leaves behind: it may name items the current version lacks. */
const LOGIC_KEYS = [
  'showIf',
  'calc',
  'checks',
  'trig',
  'trigex',
  'tindex',
  'required',
  'hidden',
  'notDisplayed',
  'readOnly',
  'defaultValue',
  'ptItem',
  'mtItem',
  'tlItem',
  'curveTypeItem',
  'measureItems',
] as const;

function withoutLogic(node: CrfNode): CrfNode {
  const option = { ...node.option };
  for (const key of LOGIC_KEYS) delete option[key];
  const { id: _id, ...rest } = node;
  return { ...rest, option, children: node.children.map(withoutLogic) };
}

/** A removed item as an export holds it: its old definition without its logic, its label marked （已删除）. */
export const asRemovedItem = (node: CrfNode): CrfNode => ({
  ...withoutLogic(node),
  title: `${itemLabel(node)}${REMOVED_ITEM_MARK}`,
});

/** The items a version stores under top-level keys (containers looked into; a list group or table is one item). */
function topLevelItems(definition: CrfDefinition): CrfNode[] {
  const out: CrfNode[] = [];
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type)) out.push(node);
      else if (isContainerType(node.type)) walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}

/**
 * The top-level items of older versions (newest first) whose names the current version does not store: each name
 * once, as its newest version defines it, in the order met (newest version first, form order within it).
 */
export function removedItemsOf(current: CrfDefinition, older: readonly CrfDefinition[]): CrfNode[] {
  const known = knownValueKeys(current).top;
  const seen = new Set<string>();
  const out: CrfNode[] = [];
  for (const definition of older) {
    for (const node of topLevelItems(definition)) {
      if (known.has(node.name) || seen.has(node.name)) continue;
      seen.add(node.name);
      out.push(node);
    }
  }
  return out;
}

/** The current definition with the removed items (asRemovedItem) after its own items. */
export const withRemovedItems = (definition: CrfDefinition, removed: readonly CrfNode[]): CrfDefinition =>
  removed.length === 0 ? definition : { ...definition, children: [...definition.children, ...removed] };

/** A stored value that is not empty (isEmptyValue, in SQL): not null, not blank text or '[]', not an empty list. */
function filled(name: string): SQL {
  const v = sql`(${crfDataRecords.values} -> ${name}::text)`;
  return sql`(case
    when jsonb_typeof(${v}) is null or jsonb_typeof(${v}) = 'null' then false
    when jsonb_typeof(${v}) = 'string' then btrim(${v} #>> '{}') not in ('', '[]')
    when jsonb_typeof(${v}) = 'array' then jsonb_array_length(${v}) > 0
    else true end)`;
}

/** The records in one of the chosen states, as patientBatches (export-source.ts) chooses them, in SQL. */
function inStates(studyId: number, states: readonly ExportState[]): SQL | undefined {
  const has = new Set(states);
  if (has.has('saved') && has.has('submitted')) return undefined;
  const any: SQL[] = [];
  if (has.has('saved')) any.push(ne(crfDataRecords.state, 2));
  if (has.has('submitted')) any.push(eq(crfDataRecords.state, 2));
  if (has.has('sdv')) any.push(sql`(${crfDataRecords.sdv} -> '__form__') is not null`);
  if (has.has('signed')) {
    any.push(sql`exists (select 1 from ${signatures} where ${signatures.studyId} = ${studyId}
      and ${signatures.subjectRecordId} = ${crfDataRecords.subjectRecordId} and ${signatures.invalidatedAt} is null)`);
  }
  if (has.has('doubt')) {
    any.push(sql`exists (select 1 from ${doubts} where ${doubts.studyId} = ${studyId}
      and ${doubts.crfDataRecordId} = ${crfDataRecords.id} and ${doubts.optionType} <> 1)`);
  }
  return any.length === 0 ? sql`false` : sql`(${sql.join(any, sql` or `)})`;
}

export interface RemovedItemsQuery {
  studyId: number;
  /** The exported forms with their current (published) version and definition. */
  forms: ReadonlyArray<{ crfId: number; version: number; definition: CrfDefinition }>;
  /** The export's patients, on casebooks joined with their patients (export-source.ts patientsOfPlan). */
  patients: SQL | undefined;
  /** A fixed list of casebooks (the export's scope), or null for all the patients above. */
  subjectRecordIds: readonly number[] | null;
  states: readonly ExportState[];
  /** Identifiers were asked for (and allowed): removed identifier items go out too. */
  identifiers: boolean;
}

/**
 * Each exported form's removed items that hold a value in at least one of the export's live records (in a chosen
 * state), as asRemovedItem makes them, by form: one statement for the older versions, one scan per form that has
 * removed items. Forms without any are not in the map.
 */
export async function removedItemsWithValues(ctx: AppContext, q: RemovedItemsQuery): Promise<Map<number, CrfNode[]>> {
  const out = new Map<number, CrfNode[]>();
  if (q.forms.length === 0 || q.subjectRecordIds?.length === 0) return out;
  const versions = await ctx.db
    .select({ crfId: crfVersions.crfId, version: crfVersions.version })
    .from(crfVersions)
    .where(
      and(
        inArray(
          crfVersions.crfId,
          q.forms.map((f) => f.crfId),
        ),
        eq(crfVersions.draft, false),
      ),
    )
    .orderBy(desc(crfVersions.version));
  const older = versions.filter((v) => q.forms.some((f) => f.crfId === v.crfId && f.version !== v.version));
  if (older.length === 0) return out;
  const definitions = await definitionsOf(ctx.db, older);
  for (const form of q.forms) {
    const candidates = removedItemsOf(
      form.definition,
      older.filter((v) => v.crfId === form.crfId).flatMap((v) => definitions.get(versionKey(v.crfId, v.version)) ?? []),
    ).filter((node) => q.identifiers || !isIdentifierItem(node));
    if (candidates.length === 0) continue;
    const [row] = await ctx.db
      .select(Object.fromEntries(candidates.map((node, i) => [`c${i}`, sql<boolean>`bool_or(${filled(node.name)})`])))
      .from(crfDataRecords)
      .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(
        and(
          eq(crfDataRecords.studyId, q.studyId),
          eq(crfDataRecords.crfId, form.crfId),
          isNull(crfDataRecords.deletedAt),
          q.patients,
          q.subjectRecordIds ? inArray(crfDataRecords.subjectRecordId, [...q.subjectRecordIds]) : undefined,
          inStates(q.studyId, q.states),
        ),
      );
    const held = candidates.filter((_, i) => row?.[`c${i}`] === true);
    if (held.length > 0) out.set(form.crfId, held.map(asRemovedItem));
  }
  return out;
}
