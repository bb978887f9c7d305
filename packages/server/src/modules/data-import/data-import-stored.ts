/**
 * What the study holds for a workbook's rows, read in chunks for the whole file at once rather than row by row: the
 * patients its codes name, their stored records of the sheets' forms, and the other forms' values form() reads.
 */
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { CrfDefinition } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { otherFormValuesOf, type OtherFormValues } from '../crf-data/linked-values.service.js';
import type { StoredRecord } from './data-import.types.js';

const chunk = <T>(list: readonly T[], size: number) =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, i * size + size));

export interface ImportPatient {
  subjectRecordId: number;
  gender: number;
}

/**
 * Patients: only live patients of this study, and of them only those at the caller's sites (分中心): a row naming
 * another site's patient is refused with its own error, as a row naming no patient is.
 */
export async function patientsByCode(db: Db, access: StudyAccess, codes: string[]) {
  const patients = new Map<string, ImportPatient>();
  const otherSites = new Set<string>();
  for (const part of chunk(codes, 5_000)) {
    const found = await db
      .select({
        code: subjects.identificationCode,
        subjectRecordId: subjectRecords.id,
        gender: subjects.gender,
        siteId: subjects.deptId,
      })
      .from(subjects)
      .innerJoin(subjectRecords, and(eq(subjectRecords.subjectId, subjects.id), isNull(subjectRecords.deletedAt)))
      .where(
        and(
          eq(subjects.studyId, access.studyId),
          isNull(subjects.deletedAt),
          inArray(subjects.identificationCode, part),
        ),
      );
    for (const p of found) {
      if (seesSite(access, p.siteId)) patients.set(p.code, { subjectRecordId: p.subjectRecordId, gender: p.gender });
      else otherSites.add(p.code);
    }
  }
  return { patients, otherSites };
}

/** The live records of these forms of these casebooks, by `subjectRecordId:crfId`, oldest first. */
export async function storedRecordsOf(
  db: Db,
  studyId: number,
  crfIds: number[],
  recordIds: number[],
): Promise<Map<string, StoredRecord[]>> {
  const records = new Map<string, StoredRecord[]>();
  for (const part of chunk(recordIds, 5_000)) {
    if (crfIds.length === 0) break;
    const rows = await db
      .select({
        id: crfDataRecords.id,
        subjectRecordId: crfDataRecords.subjectRecordId,
        crfId: crfDataRecords.crfId,
        crfVersion: crfDataRecords.crfVersion,
        state: crfDataRecords.state,
        version: crfDataRecords.version,
        values: crfDataRecords.values,
        missing: crfDataRecords.missing,
      })
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.studyId, studyId),
          inArray(crfDataRecords.subjectRecordId, part),
          inArray(crfDataRecords.crfId, crfIds),
          isNull(crfDataRecords.deletedAt),
        ),
      )
      .orderBy(asc(crfDataRecords.id));
    for (const r of rows) {
      const key = `${r.subjectRecordId}:${r.crfId}`;
      records.set(key, [...(records.get(key) ?? []), r]);
    }
  }
  return records;
}

/**
 * Other forms' values (form() references), read for every patient of the file at once per definition that has any,
 * instead of once per row.
 */
export function otherValuesLoader(db: Db, studyId: number, allRecordIds: number[]) {
  const otherValues = new Map<CrfDefinition, Map<number, OtherFormValues>>();
  return async (definition: CrfDefinition, subjectRecordId: number): Promise<OtherFormValues> => {
    let loaded = otherValues.get(definition);
    if (!loaded) {
      loaded = new Map();
      for (const part of chunk(allRecordIds, 5_000)) {
        for (const [id, values] of await otherFormValuesOf(db, studyId, part, definition)) {
          loaded.set(id, values);
        }
      }
      otherValues.set(definition, loaded);
    }
    return loaded.get(subjectRecordId) ?? {};
  };
}
