import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { crfVersions, crfs, subjectRecords, subjects } from '../../db/schema/index.js';

/**
 * Which version a form's new record takes (issue 36): a test patient (subjects.test) fills the CRF's open draft when
 * there is one, everyone else the current (newest published) version. A record keeps its version afterwards; only
 * the amendment's migration moves it.
 */
export function versionForNewRecord(
  crf: { currentVersion: number; draftVersion?: number | null },
  testPatient: boolean | null | undefined,
): number {
  return testPatient && crf.draftVersion ? crf.draftVersion : crf.currentVersion;
}

/** The CRF's open draft version as a column of a select over `crfs` (null: none). */
export const draftVersionColumn = sql<
  number | null
>`(select ${crfVersions.version} from ${crfVersions} where ${crfVersions.crfId} = ${crfs.id} and ${crfVersions.draft})`;

/** The version a new record of `crfId` in this casebook takes (one read). */
export async function newRecordVersion(db: Db, subjectRecordId: number, crfId: number): Promise<number | undefined> {
  const [row] = await db
    .select({ currentVersion: crfs.currentVersion, draftVersion: draftVersionColumn, test: subjects.test })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(crfs, and(eq(crfs.id, crfId), eq(crfs.studyId, subjectRecords.studyId)))
    .where(eq(subjectRecords.id, subjectRecordId));
  return row ? versionForNewRecord(row, row.test) : undefined;
}
