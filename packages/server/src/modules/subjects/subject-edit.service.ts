/** Enrolling and editing a patient: the form's model, the checks of a code and an ID number, the audit's masking. */
import crypto from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import {
  isMaskOf,
  maskIdentifier,
  MSG,
  normalizeIdNumber,
  normalizeMobile,
  sameValue,
  subjectFieldErrors,
  SUBJECT_FIELD_NAMES,
  SUBJECT_IDENTIFIER_FIELDS,
  studyModeOf,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { departments, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { getSerialNumber, nextSerialNumber } from '../study/study.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { audit } from '../audit/audit.service.js';
import { getSubject, notFound, studySettingsOf, today } from './subject.service.js';

export interface SubjectInput {
  identificationCode?: string | null;
  subjectName: string;
  gender: number;
  birth?: string | null;
  mobile?: string | null;
  idNumber?: string | null;
  diseaseCode: string;
  deptId?: number | null;
  /** A test patient of a production study (in a study in 测试 every patient is one). */
  test?: boolean;
}

/** An edit: an absent key leaves the field as it is; null or '' clears an optional field. */
export type SubjectPatch = Partial<SubjectInput>;

/** What an edit compares and audits field by field: the patient's own fields and the site. */
const SUBJECT_FIELDS = [...SUBJECT_FIELD_NAMES, 'deptId'] as const;
/** Identifiers the audit trail shows masked: the trail must show that they changed, by whom and when, not the numbers. */
const AUDIT_MASKED = new Set<string>(['mobile', 'idNumber']);

export async function subjectFormModel(ctx: AppContext, studyId: number) {
  const { study, diseases, baseConfig } = await studySettingsOf(ctx.db, studyId);
  const serial = await getSerialNumber(ctx, studyId);
  return {
    baseConfig,
    diseases: diseases.map((d) => ({ id: d.id, diseaseName: d.diseaseName, diseaseCode: d.diseaseCode })),
    enableSerialNumber: study.enableSerialNumber,
    serialPreview: study.enableSerialNumber ? serial.preview : null,
  };
}

export async function isCodeTaken(db: Db, studyId: number, code: string, exceptSubjectId?: number) {
  const [row] = await db
    .select({ id: subjects.id })
    .from(subjects)
    .where(
      and(eq(subjects.studyId, studyId), eq(subjects.identificationCode, code.trim()), isNull(subjects.deletedAt)),
    );
  return Boolean(row && row.id !== exceptSubjectId);
}

export async function isIdNumberTaken(
  ctx: AppContext,
  db: Db,
  studyId: number,
  idNumber: string,
  exceptSubjectId?: number,
) {
  const [row] = await db
    .select({ id: subjects.id })
    .from(subjects)
    .where(
      and(
        eq(subjects.studyId, studyId),
        eq(subjects.idNumberHash, ctx.fieldCrypto.hash(normalizeIdNumber(idNumber))),
        isNull(subjects.deletedAt),
      ),
    );
  return Boolean(row && row.id !== exceptSubjectId);
}

/** The two stored columns of an ID number (null clears both). */
function idNumberColumns(ctx: AppContext, idNumber: string | null) {
  if (!idNumber) return { idNumberEnc: null, idNumberHash: null };
  const value = normalizeIdNumber(idNumber);
  return { idNumberEnc: ctx.fieldCrypto.encrypt(value), idNumberHash: ctx.fieldCrypto.hash(value) };
}

function auditValue(field: string, value: unknown) {
  return AUDIT_MASKED.has(field) && typeof value === 'string'
    ? maskIdentifier(field as 'mobile' | 'idNumber', value)
    : value;
}

function fieldErrors(errors: Record<string, string>) {
  const list = Object.entries(errors).map(([path, message]) => ({ path, message }));
  if (list.length > 0) throw AppError.badRequest('subject.invalid', list[0]!.message, { errors: list });
}

/**
 * Where a new patient goes (docs/multi-centre.md): a site the enrolling member is assigned to, the first of them
 * unless one is chosen; a member seeing every site may choose any department. A member with no site of their own
 * enrols at their user department, as before sites existed.
 */
async function enrolmentSite(tx: Db, user: CurrentUser, access: StudyAccess, chosen: number | null | undefined) {
  if (chosen === null || chosen === undefined) return access.ownSiteIds[0] ?? user.deptId;
  if (access.siteIds === null) {
    if (!(await departmentExists(tx, chosen))) throw AppError.badRequest('subject.site_unknown', '所选中心不存在');
    return chosen;
  }
  if (!access.ownSiteIds.includes(chosen)) {
    throw AppError.badRequest('subject.site_out_of_scope', '所选中心不在您的中心范围内');
  }
  return chosen;
}

/**
 * Is the study in 测试? Read after the lock gate: 上线 holds the study's locks exclusively while it purges, so an
 * enrolment waiting there reads the mode 上线 left (no test patient slips into a study just gone live unmarked,
 * nor a production one into the purge).
 */
async function inTest(tx: Db, studyId: number): Promise<boolean> {
  const [row] = await tx.select({ mode: studies.mode }).from(studies).where(eq(studies.studyId, studyId));
  return studyModeOf(row?.mode) === 'test';
}

export async function departmentExists(db: Db, deptId: number) {
  const [row] = await db.select({ deptId: departments.deptId }).from(departments).where(eq(departments.deptId, deptId));
  return Boolean(row);
}

/** Enrols a patient: subject, casebook (subject record), serial number and audit row in one transaction. */
export async function createSubject(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  studyId: number,
  input: SubjectInput,
) {
  const { test: askedTest, ...fields } = input;
  const subjectId = await ctx.db.transaction(async (tx) => {
    const { study, diseases, baseConfig } = await studySettingsOf(tx, studyId);
    fieldErrors(
      subjectFieldErrors(input, {
        baseConfig,
        today: today(ctx, access),
        serialNumbers: study.enableSerialNumber,
        diseaseCodes: diseases.map((d) => d.diseaseCode),
      }),
    );
    const deptId = await enrolmentSite(tx, user, access, input.deptId);
    await assertWritable(tx, { studyId, siteId: deptId });
    const test = askedTest === true || (await inTest(tx, studyId));
    const code = study.enableSerialNumber
      ? await nextSerialNumber(tx, studyId, deptId)
      : input.identificationCode!.trim();
    if (await isCodeTaken(tx, studyId, code)) throw AppError.conflict('subject.code_taken', MSG.codeTaken);
    if (input.idNumber && (await isIdNumberTaken(ctx, tx, studyId, input.idNumber))) {
      throw AppError.conflict('subject.id_number_taken', MSG.idNumberTaken);
    }
    const [subject] = await tx
      .insert(subjects)
      .values({
        studyId,
        identificationCode: code,
        subjectName: input.subjectName.trim(),
        gender: input.gender,
        birth: input.birth || null,
        mobile: input.mobile ? normalizeMobile(input.mobile) : null,
        ...idNumberColumns(ctx, input.idNumber || null),
        diseaseCode: input.diseaseCode,
        qrCode: crypto.randomBytes(16).toString('hex'),
        deptId,
        test,
        createdBy: user.userId,
        createdAt: ctx.clock(),
        updatedAt: ctx.clock(),
      })
      .returning({ id: subjects.id });
    const [record] = await tx
      .insert(subjectRecords)
      .values({
        studyId,
        subjectId: subject!.id,
        createdBy: user.userId,
        createdAt: ctx.clock(),
        updatedAt: ctx.clock(),
      })
      .returning({ id: subjectRecords.id });
    await audit(tx, user, ctx.clock(), [
      {
        studyId,
        subjectRecordId: record!.id,
        action: 'subject.create',
        newValue: Object.fromEntries(
          Object.entries({
            ...fields,
            idNumber: input.idNumber ? normalizeIdNumber(input.idNumber) : input.idNumber,
            identificationCode: code,
            deptId,
            ...(test && { test }),
          }).map(([field, value]) => [field, auditValue(field, value)]),
        ),
      },
    ]);
    await ctx.events.record(tx, {
      type: 'subject.enrolled',
      studyId,
      subjectId: subject!.id,
      by: user.userId,
    });
    return subject!.id;
  });
  return getSubject(ctx, subjectId, access);
}

/**
 * Edits a patient. An absent key keeps the stored value, and so does the mask of the stored
 * value sent back (a member without the identifiers permission never had the clear one); only an
 * explicit null or '' clears an optional field.
 */
export async function updateSubject(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
  input: SubjectPatch,
) {
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(subjects)
      .where(and(eq(subjects.id, subjectId), isNull(subjects.deletedAt)))
      .for('update');
    if (!existing) throw notFound();
    const [record] = await tx
      .select({ id: subjectRecords.id })
      .from(subjectRecords)
      .where(eq(subjectRecords.subjectId, subjectId));
    await assertWritable(tx, { studyId: existing.studyId, subjectRecordId: record?.id, siteId: existing.deptId });
    const { study, diseases, baseConfig } = await studySettingsOf(tx, existing.studyId);
    const stored = {
      identificationCode: existing.identificationCode,
      subjectName: existing.subjectName,
      gender: existing.gender,
      birth: existing.birth,
      mobile: existing.mobile,
      idNumber: existing.idNumberEnc ? ctx.fieldCrypto.decrypt(existing.idNumberEnc) : null,
      diseaseCode: existing.diseaseCode,
      deptId: existing.deptId,
    };
    const given = <K extends keyof typeof stored>(field: K): boolean => {
      const value = input[field];
      if (value === undefined) return false;
      return !(
        (SUBJECT_IDENTIFIER_FIELDS as readonly string[]).includes(field) &&
        isMaskOf(field as (typeof SUBJECT_IDENTIFIER_FIELDS)[number], value, stored[field] as string | null)
      );
    };
    const text = (v: string | null | undefined) => (v === undefined || v === null ? null : v.trim() || null);
    // A serial code is the study's to assign; it never changes afterwards.
    const code =
      study.enableSerialNumber || !given('identificationCode')
        ? existing.identificationCode
        : (input.identificationCode ?? '').trim();
    const next = {
      identificationCode: code,
      subjectName: given('subjectName') ? (input.subjectName ?? '').trim() : stored.subjectName,
      gender: given('gender') ? input.gender! : stored.gender,
      birth: given('birth') ? text(input.birth) : stored.birth,
      mobile: given('mobile') ? (text(input.mobile) === null ? null : normalizeMobile(input.mobile!)) : stored.mobile,
      idNumber: given('idNumber')
        ? text(input.idNumber) === null
          ? null
          : normalizeIdNumber(input.idNumber!)
        : stored.idNumber,
      diseaseCode: given('diseaseCode') ? input.diseaseCode! : stored.diseaseCode,
      // A patient changes site only through moveSubjectSite: audited with its reason, for managers only.
      deptId: existing.deptId,
    };
    if (input.deptId !== undefined && input.deptId !== null && input.deptId !== existing.deptId) {
      throw AppError.badRequest('subject.site_move', '转移中心请使用“转移中心”操作');
    }
    fieldErrors(
      subjectFieldErrors(next, {
        baseConfig,
        today: today(ctx, access),
        serialNumbers: false,
        diseaseCodes: diseases.map((d) => d.diseaseCode),
      }),
    );
    if (code !== existing.identificationCode && (await isCodeTaken(tx, existing.studyId, code, subjectId))) {
      throw AppError.conflict('subject.code_taken', MSG.codeTaken);
    }
    const idChanged = next.idNumber !== stored.idNumber;
    if (idChanged && next.idNumber && (await isIdNumberTaken(ctx, tx, existing.studyId, next.idNumber, subjectId))) {
      throw AppError.conflict('subject.id_number_taken', MSG.idNumberTaken);
    }
    const { idNumber, ...columns } = next;
    await tx
      .update(subjects)
      .set({ ...columns, ...(idChanged ? idNumberColumns(ctx, idNumber) : {}), updatedAt: ctx.clock() })
      .where(eq(subjects.id, subjectId));
    await audit(
      tx,
      user,
      ctx.clock(),
      SUBJECT_FIELDS.filter((f) => !sameValue(stored[f], next[f])).map((f) => ({
        studyId: existing.studyId,
        subjectRecordId: record!.id,
        action: 'subject.update',
        itemName: f,
        oldValue: auditValue(f, stored[f]),
        newValue: auditValue(f, next[f]),
      })),
    );
  });
  return getSubject(ctx, subjectId, access);
}
