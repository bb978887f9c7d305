import { and, eq, inArray } from 'drizzle-orm';
import {
  ageInYears,
  genderFromPatient,
  rangesForForm,
  sampleDateOf,
  todayString,
  type CrfDefinition,
  type LabReferenceRange,
  type RangeOverride,
  type UsedRange,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { labReferenceRanges } from '../../db/schema/index.js';
import { labRangeOf } from '../lab-ranges/lab-ranges.service.js';

/**
 * 参考范围 (issue 37) for every writer (the form save, the import's batch, an amendment's migration and its impact
 * report): the patient's site's ranges at the sample date, as overrides for the engine and the ranges used to store
 * in crf_data_records.lab_ranges. A patient without a site keeps the items' own ranges. The choice is core's
 * (rangesForForm); this file only loads the rows and supplies the patient's facts, the same way for every writer.
 */

export type LabRangesOfRecord = { overrides: Record<string, RangeOverride>; used: Record<string, UsedRange> };

/** The patient and record facts the choice reads. */
export interface RangePatient {
  gender: number | null;
  birth: string | null;
  definition: CrfDefinition;
  /** The record's values after the write (the sample date item is read from them). */
  values: Readonly<Record<string, unknown>>;
  recordCreatedAt: Date | null;
  now: Date;
  timeZone: string;
}

/**
 * The range rows of the given sites of a study, by site: one query whatever their number, so that a batch of
 * records (an import, a migration) loads its patients' sites once, not per record.
 */
export async function rangesOfSites(
  db: Db,
  studyId: number,
  siteIds: ReadonlyArray<number | null>,
): Promise<Map<number, LabReferenceRange[]>> {
  const ids = [...new Set(siteIds.filter((s): s is number => s !== null))];
  const out = new Map<number, LabReferenceRange[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db
    .select()
    .from(labReferenceRanges)
    .where(and(eq(labReferenceRanges.studyId, studyId), inArray(labReferenceRanges.siteId, ids)));
  for (const r of rows) out.get(r.siteId)?.push(labRangeOf(r));
  return out;
}

/** One site's loaded rows (a patient without a site, or a site without rows: none). */
export const siteRowsOf = (sites: ReadonlyMap<number, LabReferenceRange[]>, siteId: number | null) =>
  siteId === null ? [] : (sites.get(siteId) ?? []);

/** The ranges one record is judged by, from its site's loaded rows (none: the items' own). */
export function labRangesOfRecord(site: readonly LabReferenceRange[], p: RangePatient): LabRangesOfRecord {
  const today = todayString(p.now, p.timeZone);
  const recordDate = p.recordCreatedAt ? todayString(p.recordCreatedAt, p.timeZone) : null;
  const sampleDate = sampleDateOf(p.definition, p.values, { recordDate, today });
  return rangesForForm(p.definition, site, {
    gender: genderFromPatient(p.gender),
    ageYears: ageInYears(p.birth, sampleDate),
    sampleDate,
  });
}

/** The form save's one record: its site's rows loaded, then chosen as every writer chooses. */
export async function labRangesForSave(
  tx: Db,
  p: RangePatient & { studyId: number; siteId: number | null },
): Promise<LabRangesOfRecord> {
  return labRangesOfRecord(siteRowsOf(await rangesOfSites(tx, p.studyId, [p.siteId]), p.siteId), p);
}
