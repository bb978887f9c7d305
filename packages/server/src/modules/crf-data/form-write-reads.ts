/**
 * The reads of a save: the casebook, its patient and the form, and the record changed, in one statement where it
 * can (reusable prepared selects), with the one-by-one reads that say what is missing when it finds nothing.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { reusableSelect } from '../../db/reusable-query.js';
import { crfDataRecords, crfs, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { draftVersionColumn } from '../amendment/draft-version.service.js';
import type { FormChange } from './form-writer.js';

export type Stored = typeof crfDataRecords.$inferSelect;
export type Casebook = { id: number; studyId: number; subjectId: number; siteId: number | null };

export async function liveRecord(db: Db, subjectRecordId: number) {
  const [record] = await db
    .select()
    .from(subjectRecords)
    .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
  if (!record) throw AppError.notFound('subject.not_found', '患者不存在');
  return record;
}

export async function crfOfStudy(db: Db, studyId: number, crfId: number) {
  const [crf] = await db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw AppError.notFound('crf.not_found', 'CRF不存在');
  return crf;
}

const casebookColumns = {
  id: subjectRecords.id,
  studyId: subjectRecords.studyId,
  subjectId: subjectRecords.subjectId,
  siteId: subjects.deptId,
};

/** The live casebook, its patient's sex and site, and the form in the casebook's study: a form's first save. */
const readForFirstSave = reusableSelect('crf_save_read_first', (db) =>
  db
    .select({
      record: casebookColumns,
      gender: subjects.gender,
      birth: subjects.birth,
      test: subjects.test,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion, draftVersion: draftVersionColumn },
      missingCodes: studies.missingCodes,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, subjectRecords.studyId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt))),
);

/** The same and the form's record, locked until the save commits. */
const readForLaterSave = reusableSelect('crf_save_read', (db) =>
  db
    .select({
      record: casebookColumns,
      gender: subjects.gender,
      birth: subjects.birth,
      crf: { title: crfs.title, currentVersion: crfs.currentVersion },
      missingCodes: studies.missingCodes,
      existing: crfDataRecords,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, subjectRecords.studyId))
    .innerJoin(crfs, and(eq(crfs.id, sql.placeholder('crfId')), eq(crfs.studyId, subjectRecords.studyId)))
    .innerJoin(
      crfDataRecords,
      and(
        eq(crfDataRecords.id, sql.placeholder('crfDataRecordId')),
        eq(crfDataRecords.subjectRecordId, subjectRecords.id),
        eq(crfDataRecords.crfId, sql.placeholder('crfId')),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .where(and(eq(subjectRecords.id, sql.placeholder('subjectRecordId')), isNull(subjectRecords.deletedAt)))
    .for('update', { of: crfDataRecords }),
);

/**
 * What a save judges, read in one statement. When that finds nothing, the reads one by one say what is missing,
 * in the order the refusals have always come.
 */
export async function readForSave(tx: Db, input: FormChange) {
  const found = input.crfDataRecordId
    ? await readForLaterSave(tx, {
        subjectRecordId: input.subjectRecordId,
        crfId: input.crfId,
        crfDataRecordId: input.crfDataRecordId,
      })
    : await readForFirstSave(tx, { subjectRecordId: input.subjectRecordId, crfId: input.crfId });
  const [row] = found as Array<{
    record: Casebook;
    gender: number | null;
    birth: string | null;
    test?: boolean;
    crf: { title: string; currentVersion: number; draftVersion?: number | null };
    missingCodes: Array<{ code: string; label: string }>;
    existing?: Stored;
  }>;
  if (!row) {
    const record = await liveRecord(tx, input.subjectRecordId);
    await crfOfStudy(tx, record.studyId, input.crfId);
    throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  }
  return row;
}

/**
 * The live record of a single form of a patient: the one its unique index (crf_data_records_single_live) lets
 * stand, that a concurrent first record lost to.
 */
export async function singleLiveRecord(tx: Db, subjectRecordId: number, crfId: number): Promise<Stored | undefined> {
  const [record] = await tx
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        eq(crfDataRecords.singleForm, true),
        isNull(crfDataRecords.deletedAt),
      ),
    );
  return record;
}
