import { and, count, desc, eq, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { buttonKey, maskName, type MedicalCategory } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs, medicalRecords, storedFiles, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { subjectInCallerSites } from '../../shared/patient-site.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { openFile } from '../files/file.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

export const MEDICAL_VIEW = buttonKey('project.medical.view');
export const MEDICAL_EDIT = buttonKey('project.medical.edit');

export interface MedicalFile {
  fileKey: string;
  fileName: string;
}

export interface MedicalInput {
  subjectId: number;
  title: string;
  category: MedicalCategory;
  visitDate?: string | null;
  hospital?: string | null;
  note?: string | null;
  files: MedicalFile[];
}

type MedicalRow = typeof medicalRecords.$inferSelect;

const notFound = () => AppError.notFound('medical.not_found', '病历资料不存在');
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A medical record's own fields, the files by key and name: what the audit trail keeps and the views show. */
const recordFields = (row: Pick<MedicalRow, 'title' | 'category' | 'visitDate' | 'hospital' | 'note' | 'files'>) => ({
  title: row.title,
  category: row.category,
  visitDate: row.visitDate,
  hospital: row.hospital,
  note: row.note,
  files: row.files,
});

/** The patient's casebook (subject record), live, in this study. */
async function casebookOf(db: Db, studyId: number, subjectId: number) {
  const [row] = await db
    .select({ subjectRecordId: subjectRecords.id })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, studyId), isNull(subjects.deletedAt)));
  if (!row) throw AppError.badRequest('medical.subject_not_found', '患者不存在');
  return row.subjectRecordId;
}

/** The casebook of the patient a change names, once the locks allow changes to it. */
async function writableCasebookOf(tx: Db, studyId: number, subjectId: number) {
  const subjectRecordId = await casebookOf(tx, studyId, subjectId);
  await assertWritable(tx, { studyId, subjectRecordId });
  return subjectRecordId;
}

/** What every audit row of a change to a medical record names: the patient's casebook and the record. */
const auditedRecord = (studyId: number, subjectRecordId: number, id: number) => ({
  studyId,
  subjectRecordId,
  itemName: `病历资料#${id}`,
});

async function views(ctx: AppContext, access: StudyAccess, rows: MedicalRow[]) {
  const subjectIds = [...new Set(rows.map((r) => r.subjectId))];
  const people = subjectIds.length
    ? await ctx.db
        .select({ id: subjects.id, code: subjects.identificationCode, name: subjects.subjectName })
        .from(subjects)
        .where(and(eq(subjects.studyId, access.studyId), inArray(subjects.id, subjectIds)))
    : [];
  const clear = seesIdentifiers(access);
  const byId = new Map(people.map((p) => [p.id, p]));
  const recordIds = [...new Set(rows.flatMap((r) => (r.crfDataRecordId === null ? [] : [r.crfDataRecordId])))];
  const linked = recordIds.length
    ? await ctx.db
        .select({ id: crfDataRecords.id, crfId: crfDataRecords.crfId, title: crfs.title })
        .from(crfDataRecords)
        .innerJoin(crfs, eq(crfs.id, crfDataRecords.crfId))
        .where(and(eq(crfDataRecords.studyId, access.studyId), inArray(crfDataRecords.id, recordIds)))
    : [];
  const crfById = new Map(linked.map((l) => [l.id, l]));
  return rows.map((row) => {
    const person = byId.get(row.subjectId);
    const crf = row.crfDataRecordId === null ? undefined : crfById.get(row.crfDataRecordId);
    // A CRF the caller may not view is named as linked, without its title.
    const crfVisible = crf !== undefined && canViewCrf(access, crf.crfId);
    return {
      id: row.id,
      studyId: row.studyId,
      subjectId: row.subjectId,
      identificationCode: person?.code ?? null,
      subjectName: person ? (clear ? person.name : maskName(person.name)) : null,
      ...recordFields(row),
      crfDataRecordId: row.crfDataRecordId,
      crfId: crfVisible ? crf.crfId : null,
      crfTitle: crfVisible ? crf.title : null,
      createTime: row.createdAt.toISOString(),
      updateTime: row.updatedAt.toISOString(),
    };
  });
}

export interface MedicalFilter {
  subjectId?: number;
  crfDataRecordId?: number;
  keyword?: string;
}

/**
 * Medical records of the study (病历管理) of patients at the caller's sites (分中心), newest first; keyword over
 * title, note and the patient's code.
 */
export async function listMedicals(ctx: AppContext, access: StudyAccess, filter: MedicalFilter, page: PageRequest) {
  const parts: SQL[] = [eq(medicalRecords.studyId, access.studyId), isNull(medicalRecords.deletedAt)];
  const site = subjectInCallerSites(access, medicalRecords.subjectId);
  if (site) parts.push(site);
  if (filter.subjectId !== undefined) parts.push(eq(medicalRecords.subjectId, filter.subjectId));
  if (filter.crfDataRecordId !== undefined) parts.push(eq(medicalRecords.crfDataRecordId, filter.crfDataRecordId));
  const k = filter.keyword?.trim();
  if (k) {
    const p = `%${escapeLike(k)}%`;
    const matching = ctx.db
      .select({ id: subjects.id })
      .from(subjects)
      .where(and(eq(subjects.studyId, access.studyId), ilike(subjects.identificationCode, p)));
    parts.push(
      or(ilike(medicalRecords.title, p), ilike(medicalRecords.note, p), inArray(medicalRecords.subjectId, matching))!,
    );
  }
  const where = and(...parts)!;
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(medicalRecords).where(where),
    ctx.db
      .select()
      .from(medicalRecords)
      .where(where)
      .orderBy(desc(medicalRecords.createdAt), desc(medicalRecords.id))
      .$dynamic(),
    page,
  );
  return { list: await views(ctx, access, rows), total };
}

async function liveRow(db: Db, studyId: number, id: number) {
  const [row] = await db
    .select()
    .from(medicalRecords)
    .where(and(eq(medicalRecords.studyId, studyId), eq(medicalRecords.id, id), isNull(medicalRecords.deletedAt)));
  if (!row) throw notFound();
  return row;
}

export async function getMedical(ctx: AppContext, access: StudyAccess, id: number) {
  const [one] = await views(ctx, access, [await liveRow(ctx.db, access.studyId, id)]);
  return one!;
}

/** Attached files must be uploads of this study (POST /api/common/file/upload?studyId). */
async function checkFiles(db: Db, studyId: number, files: MedicalFile[]) {
  const keys = [...new Set(files.map((f) => f.fileKey))];
  if (keys.length !== files.length) throw AppError.badRequest('medical.file_twice', '文件重复');
  if (keys.length === 0) return;
  const found = await db
    .select({ key: storedFiles.fileKey })
    .from(storedFiles)
    .where(and(eq(storedFiles.studyId, studyId), inArray(storedFiles.fileKey, keys)));
  if (found.length !== keys.length) throw AppError.badRequest('medical.file_not_found', '文件不存在');
}

const fields = (input: MedicalInput) => ({
  subjectId: input.subjectId,
  title: input.title,
  category: input.category,
  visitDate: input.visitDate ?? null,
  hospital: input.hospital ?? null,
  note: input.note ?? null,
  files: input.files,
});

export async function createMedical(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: MedicalInput) {
  const id = await ctx.db.transaction(async (tx) => {
    const subjectRecordId = await writableCasebookOf(tx, access.studyId, input.subjectId);
    await checkFiles(tx, access.studyId, input.files);
    const now = ctx.clock();
    const [row] = await tx
      .insert(medicalRecords)
      .values({ ...fields(input), studyId: access.studyId, createdBy: user.userId, createdAt: now, updatedAt: now })
      .returning();
    await audit(tx, user, now, [
      {
        ...auditedRecord(access.studyId, subjectRecordId, row!.id),
        action: 'medical.create',
        newValue: recordFields(row!),
      },
    ]);
    return row!.id;
  });
  return getMedical(ctx, access, id);
}

export async function updateMedical(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  input: MedicalInput,
  reason: string,
) {
  await ctx.db.transaction(async (tx) => {
    const before = await liveRow(tx, access.studyId, id);
    if (before.subjectId !== input.subjectId) {
      throw AppError.badRequest('medical.subject_fixed', '病历资料所属患者不能修改');
    }
    const subjectRecordId = await writableCasebookOf(tx, access.studyId, input.subjectId);
    await checkFiles(tx, access.studyId, input.files);
    const now = ctx.clock();
    const [after] = await tx
      .update(medicalRecords)
      .set({ ...fields(input), updatedAt: now })
      .where(and(eq(medicalRecords.studyId, access.studyId), eq(medicalRecords.id, id)))
      .returning();
    await audit(tx, user, now, [
      {
        ...auditedRecord(access.studyId, subjectRecordId, id),
        action: 'medical.update',
        oldValue: recordFields(before),
        newValue: recordFields(after!),
        reason,
      },
    ]);
  });
  return getMedical(ctx, access, id);
}

/** A deletion is a mark: the record and its trail stay. */
export async function deleteMedical(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  reason: string,
) {
  await ctx.db.transaction(async (tx) => {
    const before = await liveRow(tx, access.studyId, id);
    const subjectRecordId = await writableCasebookOf(tx, access.studyId, before.subjectId);
    const now = ctx.clock();
    await tx
      .update(medicalRecords)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(medicalRecords.studyId, access.studyId), eq(medicalRecords.id, id)));
    await audit(tx, user, now, [
      {
        ...auditedRecord(access.studyId, subjectRecordId, id),
        action: 'medical.delete',
        oldValue: recordFields(before),
        reason,
      },
    ]);
  });
}

/**
 * PUT /api/v1/medical/crf: names the CRF record this medical record is the source document of (null unlinks).
 * The CRF record must be a live record of the same patient, of a CRF the caller may view.
 */
export async function linkCrf(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  crfDataRecordId: number | null,
  reason: string | null,
) {
  await ctx.db.transaction(async (tx) => {
    const before = await liveRow(tx, access.studyId, id);
    const subjectRecordId = await writableCasebookOf(tx, access.studyId, before.subjectId);
    let crfId: number | null = null;
    if (crfDataRecordId !== null) {
      const [record] = await tx
        .select({ crfId: crfDataRecords.crfId, subjectRecordId: crfDataRecords.subjectRecordId })
        .from(crfDataRecords)
        .where(
          and(
            eq(crfDataRecords.studyId, access.studyId),
            eq(crfDataRecords.id, crfDataRecordId),
            isNull(crfDataRecords.deletedAt),
          ),
        );
      if (!record || !canViewCrf(access, record.crfId)) {
        throw AppError.badRequest('medical.crf_not_found', '表单记录不存在');
      }
      if (record.subjectRecordId !== subjectRecordId) {
        throw AppError.badRequest('medical.crf_other_subject', '表单记录不属于该患者');
      }
      crfId = record.crfId;
    }
    if (before.crfDataRecordId === crfDataRecordId) return;
    const now = ctx.clock();
    await tx
      .update(medicalRecords)
      .set({ crfDataRecordId, updatedAt: now })
      .where(and(eq(medicalRecords.studyId, access.studyId), eq(medicalRecords.id, id)));
    await audit(tx, user, now, [
      {
        ...auditedRecord(access.studyId, subjectRecordId, id),
        crfDataRecordId: crfDataRecordId ?? before.crfDataRecordId,
        crfId,
        action: 'medical.crf',
        oldValue: before.crfDataRecordId,
        newValue: crfDataRecordId,
        reason,
      },
    ]);
  });
  return getMedical(ctx, access, id);
}

/** The patient's live CRF records the caller may view: what a medical record can be the source document of. */
export async function linkableRecords(ctx: AppContext, access: StudyAccess, subjectId: number) {
  const subjectRecordId = await casebookOf(ctx.db, access.studyId, subjectId);
  const rows = await ctx.db
    .select({
      crfDataRecordId: crfDataRecords.id,
      crfId: crfDataRecords.crfId,
      crfTitle: crfs.title,
      createdAt: crfDataRecords.createdAt,
    })
    .from(crfDataRecords)
    .innerJoin(crfs, eq(crfs.id, crfDataRecords.crfId))
    .where(
      and(
        eq(crfDataRecords.studyId, access.studyId),
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(crfDataRecords.crfId, crfDataRecords.id);
  return rows
    .filter((r) => canViewCrf(access, r.crfId))
    .map((r) => ({ ...r, createdAt: undefined, createTime: r.createdAt.toISOString() }));
}

/** One file of a live medical record, for a caller with 查看病历资料 (the route checks the key). */
export async function medicalFile(ctx: AppContext, access: StudyAccess, id: number, fileKey: string) {
  const row = await liveRow(ctx.db, access.studyId, id);
  if (!row.files.some((f) => f.fileKey === fileKey)) throw AppError.notFound('file.not_found', '文件不存在');
  const file = await openFile(ctx, fileKey);
  if (file.row.studyId !== access.studyId) throw AppError.notFound('file.not_found', '文件不存在');
  return file;
}
