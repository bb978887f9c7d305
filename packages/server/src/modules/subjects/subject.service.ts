/**
 * A patient as answered (identifiers clear or masked) and the reads every subject file shares. Enrolling and
 * editing: subject-edit.service.ts; the patient list: subject-list.service.ts; casebook acts (site, state,
 * deletion, signature): subject-record.service.ts.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import {
  ageFromBirth,
  buttonKey,
  DEFAULT_BASE_CONFIG,
  DEFAULT_TIME_ZONE,
  maskIdentifier,
  SUBJECT_IDENTIFIER_FIELDS,
  todayString,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  departments,
  signatures,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';

export const notFound = () => AppError.notFound('subject.not_found', '患者不存在');

/** PIPL: who sees patients' names, birth dates, mobiles and ID numbers in clear. */
export const IDENTIFIERS_PERMISSION = buttonKey('business.subject.identifiers');
export function seesIdentifiers(access: StudyAccess): boolean {
  return hasStudyPermission(access, IDENTIFIERS_PERMISSION);
}

/** Today in the study's zone (ages, birth-date limits): never the server's own zone. */
export function today(ctx: AppContext, access: Pick<StudyAccess, 'timeZone'> | null) {
  return todayString(ctx.clock(), access?.timeZone ?? DEFAULT_TIME_ZONE);
}

/** The study with its diseases and patient-field settings, as enrolling and listing patients read them. */
export async function studySettingsOf(db: Db, studyId: number) {
  const [study] = await db
    .select()
    .from(studies)
    .where(and(eq(studies.studyId, studyId), isNull(studies.deletedAt)));
  if (!study) throw AppError.notFound('study.not_found', '项目不存在');
  const diseases = await db
    .select()
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId))
    .orderBy(studyDiseases.id);
  const baseConfig = DEFAULT_BASE_CONFIG.map((f) => ({ ...f, ...study.baseConfig.find((b) => b.name === f.name) }));
  return { study, diseases, baseConfig };
}

/** A patient's code, name and particulars as the patient list and the retrieval results read them. */
export const patientParticulars = {
  identificationCode: subjects.identificationCode,
  subjectName: subjects.subjectName,
  gender: subjects.gender,
  birth: subjects.birth,
  mobile: subjects.mobile,
  idNumberEnc: subjects.idNumberEnc,
  diseaseCode: subjects.diseaseCode,
};

const subjectColumns = {
  id: subjects.id,
  studyId: subjects.studyId,
  subjectRecordId: subjectRecords.id,
  ...patientParticulars,
  openId: subjects.openId,
  qrCode: subjects.qrCode,
  deptId: subjects.deptId,
  deptName: departments.deptName,
  state: subjectRecords.state,
  test: subjects.test,
  creater: users.name,
  createTime: subjects.createdAt,
  deletedAt: subjectRecords.deletedAt,
  // 已紧急揭盲 (issue 15): shown in the patient list and the CRF header; set once, never cleared.
  emergencyUnblinded: sql<boolean>`exists (select 1 from randomizations r where r.study_id = ${subjects.studyId}
    and r.subject_id = ${subjects.id} and r.emergency_unblinded_at is not null)`.mapWith(Boolean),
};

type SubjectRow = {
  subjectName: string;
  birth: string | null;
  mobile: string | null;
  idNumberEnc: string | null;
} & Record<string, unknown>;
/**
 * A patient as answered: age from the clear birth date, the ID number decrypted, and the
 * identifiers masked unless the caller may see them (`identifiersMasked` tells the dialog so).
 */
export function present<T extends SubjectRow>(ctx: AppContext, access: StudyAccess, row: T) {
  const clear = seesIdentifiers(access);
  const { idNumberEnc, ...rest } = row;
  const ids = {
    subjectName: row.subjectName,
    birth: row.birth,
    mobile: row.mobile,
    idNumber: idNumberEnc ? ctx.fieldCrypto.decrypt(idNumberEnc) : null,
  };
  if (!clear) for (const f of SUBJECT_IDENTIFIER_FIELDS) ids[f] = maskIdentifier(f, ids[f]) as string;
  return {
    ...rest,
    ...ids,
    identifiersMasked: !clear,
    age: ageFromBirth(row.birth, today(ctx, access)),
    itemDatas: [] as Array<{ itemName: string; itemValue: unknown; units: string }>,
  };
}

export function subjectQuery(db: Db) {
  return db
    .select(subjectColumns)
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .leftJoin(users, eq(users.userId, subjects.createdBy));
}

export async function getSubject(ctx: AppContext, subjectId: number, access: StudyAccess) {
  const [row] = await subjectQuery(ctx.db).where(eq(subjects.id, subjectId));
  if (!row) throw notFound();
  return present(ctx, access, row);
}

export async function getSubjectByRecord(ctx: AppContext, subjectRecordId: number, access: StudyAccess) {
  const [row] = await subjectQuery(ctx.db).where(eq(subjectRecords.id, subjectRecordId));
  if (!row) throw notFound();
  return present(ctx, access, row);
}

export async function listSignatures(ctx: AppContext, subjectRecordId: number) {
  const rows = await ctx.db
    .select()
    .from(signatures)
    .where(eq(signatures.subjectRecordId, subjectRecordId))
    .orderBy(desc(signatures.id));
  return rows.map((s) => ({
    id: s.id,
    signer: s.signerName,
    meaning: s.meaning,
    signedAt: s.signedAt,
    valid: s.invalidatedAt === null,
    invalidatedAt: s.invalidatedAt,
    invalidatedReason: s.invalidatedReason,
  }));
}
