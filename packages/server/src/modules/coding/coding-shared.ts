import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import { CODING_MSG, meddraCodingOf, whodrugCodingOf, type CodedItemSetting, type CodingKind } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { codedItems, codingDictionaries, codingTerms, crfDataRecords, studies } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import type { AuditEntry } from '../audit/audit.service.js';

/**
 * What the coding services (dictionaries, coded items, auto-coding) share: the reads of a study's dictionaries and
 * coded-item settings, the turning of a term into a coding, which coded items a caller sees, and the audit row of a
 * change to one. Every change of a code is an audit row with the old and the new coding.
 */

/** The codes of a coded item: llt/pt/hlt/hlgt/soc codes and names, or drug and ATC. */
export type Coding = Record<string, unknown>;
export type CodingTerm = typeof codingTerms.$inferSelect;
export type CodedItem = typeof codedItems.$inferSelect;

export const codedItemNotFound = () => AppError.notFound('coding.item_not_found', CODING_MSG.codedItemNotFound);
export const noDictionary = () => AppError.badRequest('coding.no_dictionary', CODING_MSG.noDictionary);

// ---- Dictionaries and their terms ----

/** The level of the terms a verbatim is coded with: a MedDRA LLT or a WHODrug drug name. */
export const codingLevel = (kind: CodingKind) => (kind === 'meddra' ? 'llt' : 'drug');

/** The terms of one dictionary that meet the conditions. */
export const dictionaryTerms = (db: Db, dictionaryId: number, ...conditions: Array<SQL | undefined>) =>
  db
    .select()
    .from(codingTerms)
    .where(and(eq(codingTerms.dictionaryId, dictionaryId), ...conditions));

export async function activeDictionary(db: Db, studyId: number, kind: CodingKind) {
  const [row] = await db
    .select()
    .from(codingDictionaries)
    .where(
      and(
        eq(codingDictionaries.studyId, studyId),
        eq(codingDictionaries.kind, kind),
        eq(codingDictionaries.active, true),
      ),
    );
  return row;
}

/** The MedDRA PTs of a dictionary by code, of the LLTs' parent codes given; none for WHODrug, which has no PTs. */
export async function ptsByCode(
  db: Db,
  dictionaryId: number,
  kind: CodingKind,
  parentCodes: ReadonlyArray<string | null>,
): Promise<Map<string, CodingTerm>> {
  if (kind !== 'meddra') return new Map();
  const pts = await dictionaryTerms(
    db,
    dictionaryId,
    eq(codingTerms.level, 'pt'),
    inArray(codingTerms.code, ['', ...parentCodes.map((code) => code ?? '')]),
  );
  return new Map(pts.map((p) => [p.code, p]));
}

/** The coding a term gives: a drug's with its ATC, an LLT's with its PT and primary SOC (null when its PT is gone). */
export async function codingOfTerm(
  db: Db,
  dictionaryId: number,
  kind: CodingKind,
  term: CodingTerm,
): Promise<Coding | null> {
  if (kind === 'whodrug') return { ...whodrugCodingOf(term) };
  const [pt] = await dictionaryTerms(
    db,
    dictionaryId,
    eq(codingTerms.level, 'pt'),
    eq(codingTerms.code, term.parentCode ?? ''),
  );
  return pt ? { ...meddraCodingOf(term, pt) } : null;
}

// ---- The study's coded items ----

export async function codedItemSettings(db: Db, studyId: number): Promise<CodedItemSetting[]> {
  const [study] = await db.select({ codedItems: studies.codedItems }).from(studies).where(eq(studies.studyId, studyId));
  return study?.codedItems ?? [];
}

export const kindOf = (settings: readonly CodedItemSetting[], crfId: number, itemName: string) =>
  settings.find((s) => s.crfId === crfId && s.itemName === itemName)?.kind ?? null;

/** A coded item with the form and version of its record. */
export interface CodedItemOfForm {
  row: CodedItem;
  crfId: number;
  crfVersion: number;
}

/** Coded items joined to their records, for the form and version (and the record's deletion) to filter on. */
export const codedItemsOfForms = (db: Db) =>
  db
    .select({ row: codedItems, crfId: crfDataRecords.crfId, crfVersion: crfDataRecords.crfVersion })
    .from(codedItems)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId));

/** The rows the caller may see: the study's, of live records, at the caller's sites, of forms they may view. */
export function visibleRows(access: StudyAccess, ...more: Array<SQL | undefined>) {
  const crfIds = viewableCrfIds(access);
  return and(
    eq(codedItems.studyId, access.studyId),
    isNull(crfDataRecords.deletedAt),
    recordInCallerSites(access, codedItems.subjectRecordId),
    crfIds === null ? undefined : inArray(crfDataRecords.crfId, [0, ...crfIds]),
    ...more,
  );
}

// ---- The audit of a change ----

/** What the trail keeps of a coding: the verbatim, its state and its codes. */
export const codingAudit = (row: Pick<CodedItem, 'verbatim' | 'state' | 'coding'>) => ({
  verbatim: row.verbatim,
  state: row.state,
  coding: row.coding,
});

/** Where a coded item stands, as its audit rows name it. */
export interface CodedItemPlace {
  studyId: number;
  subjectRecordId: number;
  crfDataRecordId: number;
  crfId: number;
  crfVersion: number;
  itemName: string;
}

export const placeOf = ({ row, crfId, crfVersion }: CodedItemOfForm): CodedItemPlace => ({
  studyId: row.studyId,
  subjectRecordId: row.subjectRecordId,
  crfDataRecordId: row.crfDataRecordId,
  crfId,
  crfVersion,
  itemName: row.itemName,
});

/** The audit row of a change to a coded item's coding. */
export const codingChange = (
  place: CodedItemPlace,
  action: 'coding.code' | 'coding.approve',
  oldValue: unknown,
  newValue: unknown,
): AuditEntry => ({ ...place, action, oldValue, newValue });
