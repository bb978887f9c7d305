import { and, desc, eq, isNull, ne } from 'drizzle-orm';
import {
  AE_ITEMS,
  bodyMeasureOf,
  bodyMeasureValue,
  nodesByName,
  type BodyMeasure,
  type SaeTermCoding,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { codedItems, codingDictionaries, crfDataRecords, studies } from '../../db/schema/index.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';

/**
 * What the SAE report prints beyond the AE record (issue 37): the patient's height and weight from the study's own
 * items (core sae-patient-measures.ts decides which items and units count; none found: blank), and the AE term's
 * MedDRA PT and SOC when the term is a coded item whose code is approved.
 */

/**
 * 身高、体重: from the latest saved of the patient's live records (any form but the AE log) that holds a value of an
 * item the rule recognises, each measure on its own. Read when the report is printed, as the patient's fields are.
 */
export async function patientMeasures(
  ctx: AppContext,
  subjectRecordId: number,
  aeCrfId: number,
): Promise<{ height: string | null; weight: string | null }> {
  const records = await ctx.db
    .select({ crfId: crfDataRecords.crfId, version: crfDataRecords.crfVersion, values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        ne(crfDataRecords.crfId, aeCrfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(desc(crfDataRecords.updatedAt), desc(crfDataRecords.id));
  const definitions = await definitionsOf(
    ctx.db,
    records.map((r) => ({ crfId: r.crfId, version: r.version })),
  );
  const found: Record<BodyMeasure, string | null> = { height: null, weight: null };
  for (const r of records) {
    const definition = definitions.get(versionKey(r.crfId, r.version));
    if (!definition) continue;
    for (const node of nodesByName(definition).values()) {
      const measure = bodyMeasureOf(node);
      if (!measure || found[measure] !== null) continue;
      found[measure] = bodyMeasureValue(node, measure, r.values);
    }
    if (found.height !== null && found.weight !== null) break;
  }
  return found;
}

/**
 * The AE term's coded terms: only when the study codes the AE log's term item with MedDRA, its code is approved
 * (编码审核), and the verbatim coded is the term the report prints (a term changed since is not yet coded).
 */
export async function aeTermCoding(
  ctx: AppContext,
  input: { studyId: number; crfId: number; crfDataRecordId: number; term: string },
): Promise<SaeTermCoding | null> {
  const [study] = await ctx.db
    .select({ codedItems: studies.codedItems })
    .from(studies)
    .where(eq(studies.studyId, input.studyId));
  const setting = (study?.codedItems ?? []).find((c) => c.crfId === input.crfId && c.itemName === AE_ITEMS.term);
  if (setting?.kind !== 'meddra' || input.term.trim() === '') return null;
  const [row] = await ctx.db
    .select({ verbatim: codedItems.verbatim, coding: codedItems.coding, version: codingDictionaries.version })
    .from(codedItems)
    .leftJoin(codingDictionaries, eq(codingDictionaries.id, codedItems.dictionaryId))
    .where(
      and(
        eq(codedItems.studyId, input.studyId),
        eq(codedItems.crfDataRecordId, input.crfDataRecordId),
        eq(codedItems.itemName, AE_ITEMS.term),
        eq(codedItems.state, 'approved'),
      ),
    );
  const c = row?.coding as Partial<Record<'ptCode' | 'ptName' | 'socCode' | 'socName', unknown>> | null | undefined;
  if (!row || !c || row.verbatim.trim() !== input.term.trim()) return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
  if (!str(c.ptCode) || !str(c.ptName)) return null;
  return {
    version: row.version ?? '',
    ptCode: str(c.ptCode),
    ptName: str(c.ptName),
    socCode: str(c.socCode),
    socName: str(c.socName),
  };
}
