import crypto from 'node:crypto';
import { and, count, desc, eq, gte, ilike, inArray, isNotNull, isNull, lte, ne, sql } from 'drizzle-orm';
import {
  ageFromBirth,
  buttonKey,
  DEFAULT_BASE_CONFIG,
  DEFAULT_TIME_ZONE,
  FORM_STATE,
  formStateOf,
  isMaskOf,
  maskIdentifier,
  MSG,
  normalizeIdNumber,
  normalizeMobile,
  sameValue,
  subjectFieldErrors,
  SUBJECT_IDENTIFIER_FIELDS,
  todayString,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfStageCrfs,
  crfVersions,
  crfs,
  departments,
  doubts,
  signatures,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { cachedRecordStudy } from '../../shared/auth-cache.js';
import { getSerialNumber, nextSerialNumber } from '../study/study.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { audit } from '../audit/audit.service.js';
import { reauthenticate } from '../auth/password-attempts.service.js';
import { casebookCount } from '../home/study-figures.js';

export interface SubjectInput {
  identificationCode?: string | null;
  subjectName: string;
  gender: number;
  birth?: string | null;
  mobile?: string | null;
  idNumber?: string | null;
  diseaseCode: string;
  deptId?: number | null;
}

/** An edit: an absent key leaves the field as it is; null or '' clears an optional field. */
export type SubjectPatch = Partial<SubjectInput>;

const SUBJECT_FIELDS = [
  'identificationCode',
  'subjectName',
  'gender',
  'birth',
  'mobile',
  'idNumber',
  'diseaseCode',
  'deptId',
] as const;
/** Identifiers the audit trail shows masked: the trail must show that they changed, by whom and when, not the numbers. */
const AUDIT_MASKED = new Set<string>(['mobile', 'idNumber']);
const notFound = () => AppError.notFound('subject.not_found', '患者不存在');

/** PIPL: who sees patients' names, birth dates, mobiles and ID numbers in clear. */
export const IDENTIFIERS_PERMISSION = buttonKey('business.subject.identifiers');
export function seesIdentifiers(access: StudyAccess): boolean {
  return hasStudyPermission(access, IDENTIFIERS_PERMISSION);
}

/** Today in the study's zone (ages, birth-date limits): never the server's own zone. */
function today(ctx: AppContext, access: Pick<StudyAccess, 'timeZone'> | null) {
  return todayString(ctx.clock(), access?.timeZone ?? DEFAULT_TIME_ZONE);
}

async function studyOf(db: Db, studyId: number) {
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

export async function subjectFormModel(ctx: AppContext, studyId: number) {
  const { study, diseases, baseConfig } = await studyOf(ctx.db, studyId);
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

const subjectColumns = {
  id: subjects.id,
  studyId: subjects.studyId,
  subjectRecordId: subjectRecords.id,
  identificationCode: subjects.identificationCode,
  subjectName: subjects.subjectName,
  gender: subjects.gender,
  birth: subjects.birth,
  mobile: subjects.mobile,
  idNumberEnc: subjects.idNumberEnc,
  diseaseCode: subjects.diseaseCode,
  openId: subjects.openId,
  qrCode: subjects.qrCode,
  deptId: subjects.deptId,
  deptName: departments.deptName,
  state: subjectRecords.state,
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
function present<T extends SubjectRow>(ctx: AppContext, access: StudyAccess, row: T) {
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

function subjectQuery(db: Db) {
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

export async function studyOfSubject(ctx: AppContext, subjectId: number) {
  const [row] = await ctx.db.select({ studyId: subjects.studyId }).from(subjects).where(eq(subjects.id, subjectId));
  return row?.studyId;
}

export async function studyOfRecord(ctx: AppContext, subjectRecordId: number) {
  return cachedRecordStudy(ctx, subjectRecordId, async () => {
    const [row] = await ctx.db
      .select({ studyId: subjectRecords.studyId })
      .from(subjectRecords)
      .where(eq(subjectRecords.id, subjectRecordId));
    return row?.studyId;
  });
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

async function departmentExists(db: Db, deptId: number) {
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
  const subjectId = await ctx.db.transaction(async (tx) => {
    const { study, diseases, baseConfig } = await studyOf(tx, studyId);
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
            ...input,
            idNumber: input.idNumber ? normalizeIdNumber(input.idNumber) : input.idNumber,
            identificationCode: code,
            deptId,
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
    const { study, diseases, baseConfig } = await studyOf(tx, existing.studyId);
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

export const SITE_MOVE_MSG = {
  reasonRequired: '请填写转移原因',
  sameSite: '患者已在该中心',
  unknownSite: '所选中心不存在',
} as const;

/**
 * 转移中心: moves a patient to another site (department), with the reason, in one transaction and one audit row
 * (subject.site, old and new department ids). A manager's act (the route asks for 查看全部中心数据 and the edit
 * permission): the patient then belongs to the new site's members and leaves the old site's.
 */
export async function moveSubjectSite(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
  deptId: number,
  reason: string,
) {
  const why = reason.trim();
  if (!why) throw AppError.badRequest('subject.site_reason_required', SITE_MOVE_MSG.reasonRequired);
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: subjects.id, studyId: subjects.studyId, deptId: subjects.deptId })
      .from(subjects)
      .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, access.studyId), isNull(subjects.deletedAt)))
      .for('update');
    if (!existing) throw notFound();
    if (existing.deptId === deptId) throw AppError.badRequest('subject.site_same', SITE_MOVE_MSG.sameSite);
    if (!(await departmentExists(tx, deptId))) {
      throw AppError.badRequest('subject.site_unknown', SITE_MOVE_MSG.unknownSite);
    }
    const [record] = await tx
      .select({ id: subjectRecords.id })
      .from(subjectRecords)
      .where(eq(subjectRecords.subjectId, subjectId));
    await assertWritable(tx, { studyId: existing.studyId, subjectRecordId: record?.id, siteId: deptId });
    await tx.update(subjects).set({ deptId, updatedAt: ctx.clock() }).where(eq(subjects.id, subjectId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: existing.studyId,
        subjectRecordId: record?.id ?? null,
        action: 'subject.site',
        itemName: 'deptId',
        oldValue: existing.deptId,
        newValue: deptId,
        reason: why,
      },
    ]);
  });
  return getSubject(ctx, subjectId, access);
}

export interface RecordFilter {
  identificationCode?: string;
  subjectName?: string;
  diseaseCode?: string;
  state?: number;
  beginDate?: string;
  endDate?: string;
  deleted?: boolean;
}

/** The filters that narrow the list beyond a state: a filter added to RecordFilter must be named here to compile. */
const NARROWING_FILTERS: Record<Exclude<keyof RecordFilter, 'state'>, true> = {
  identificationCode: true,
  subjectName: true,
  diseaseCode: true,
  beginDate: true,
  endDate: true,
  deleted: true,
};

/** The patient list: casebooks with their form progress and the study's extra CRF columns. */
export async function listRecords(
  ctx: AppContext,
  studyId: number,
  filter: RecordFilter,
  page: PageRequest,
  access: StudyAccess,
) {
  const sites = inCallerSites(access, subjects.deptId);
  const where = and(
    eq(subjectRecords.studyId, studyId),
    // Said of the patient too, so that the list's order comes from subjects_study_newest.
    eq(subjects.studyId, studyId),
    sites,
    filter.deleted ? isNotNull(subjectRecords.deletedAt) : isNull(subjectRecords.deletedAt),
    filter.identificationCode ? ilike(subjects.identificationCode, `%${filter.identificationCode}%`) : undefined,
    filter.subjectName ? ilike(subjects.subjectName, `%${filter.subjectName}%`) : undefined,
    filter.diseaseCode ? eq(subjects.diseaseCode, filter.diseaseCode) : undefined,
    filter.state !== undefined ? eq(subjectRecords.state, filter.state) : undefined,
    filter.beginDate ? gte(subjects.createdAt, new Date(`${filter.beginDate}T00:00:00+08:00`)) : undefined,
    filter.endDate ? lte(subjects.createdAt, new Date(`${filter.endDate}T23:59:59.999+08:00`)) : undefined,
  );
  // Unfiltered (the list as it opens, or by state only), the total is the study's kept count of casebooks, which
  // costs the same at any study size; a filter by name, code, disease or date counts the matches, and so does a
  // caller seeing some sites only (the kept count is the whole study's).
  const unfiltered =
    sites === undefined &&
    (Object.keys(NARROWING_FILTERS) as (keyof typeof NARROWING_FILTERS)[]).every((name) => !filter[name]);
  const total = unfiltered
    ? await casebookCount(ctx.db, studyId, filter.state)
    : (
        (await ctx.db
          .select({ total: count() })
          .from(subjectRecords)
          .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
          .where(where)) as [{ total: number }]
      )[0].total;
  const rows = await subjectQuery(ctx.db)
    .where(where)
    .orderBy(desc(subjects.createdAt), desc(subjects.id))
    .limit(page.limit)
    .offset(page.offset);
  if (rows.length === 0) return { list: [], total: Number(total) };
  const [study] = await ctx.db
    .select({ displayCrfColumn: studies.displayCrfColumn, multiDisease: studies.multiDisease })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  const expected = await expectedForms(ctx.db, studyId, study?.multiDisease ?? false);
  const records = await ctx.db
    .select({
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfDataRecords.crfId,
      state: crfDataRecords.state,
      values: crfDataRecords.values,
      updatedAt: crfDataRecords.updatedAt,
    })
    .from(crfDataRecords)
    .where(
      and(
        inArray(
          crfDataRecords.subjectRecordId,
          rows.map((r) => r.subjectRecordId),
        ),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(crfDataRecords.updatedAt);
  const open = await ctx.db
    .select({ subjectRecordId: doubts.subjectRecordId, n: count() })
    .from(doubts)
    .where(
      and(
        inArray(
          doubts.subjectRecordId,
          rows.map((r) => r.subjectRecordId),
        ),
        ne(doubts.optionType, 1),
      ),
    )
    .groupBy(doubts.subjectRecordId);
  const list = rows.map((row) => {
    const mine = records.filter((r) => r.subjectRecordId === row.subjectRecordId);
    const columns: Record<string, unknown> = {};
    for (const name of study?.displayCrfColumn ?? []) {
      for (const r of mine) {
        if (r.values[name] !== undefined && r.values[name] !== null && r.values[name] !== '') {
          columns[name] = r.values[name];
        }
      }
    }
    return {
      ...present(ctx, access, row),
      crfStates: {
        ...formProgress(expected(row.diseaseCode), mine),
        doubt: Number(open.find((o) => o.subjectRecordId === row.subjectRecordId)?.n ?? 0),
      },
      columns,
    };
  });
  return { list, total: Number(total) };
}

/**
 * The forms a patient is expected to fill: the forms of the study's stages (a repeatable form counts
 * once); in multi-disease mode, those of them the patient's disease lists, when it lists any. Two
 * statements for the whole page, not one per patient.
 */
async function expectedForms(db: Db, studyId: number, multiDisease: boolean) {
  const staged = await db
    .selectDistinct({ crfId: crfStageCrfs.crfId })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.studyId, studyId));
  const all = staged.map((s) => s.crfId);
  if (!multiDisease) return () => all;
  const diseases = await db
    .select({ diseaseCode: studyDiseases.diseaseCode, crfIds: studyDiseases.crfIds })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId));
  const byDisease = new Map(diseases.map((d) => [d.diseaseCode, all.filter((id) => d.crfIds.includes(id))] as const));
  return (diseaseCode: string) => {
    const own = byDisease.get(diseaseCode);
    return own && own.length > 0 ? own : all;
  };
}

/**
 * 表单进度: of the forms the patient is expected to fill, how many are submitted (every record of the
 * form submitted) and how many are started but not submitted. Forms outside the expected set do not
 * count, so submitted never exceeds total.
 */
function formProgress(expected: readonly number[], records: ReadonlyArray<{ crfId: number; state: number }>) {
  let submitted = 0;
  let incomplete = 0;
  for (const crfId of expected) {
    const state = formStateOf(records.filter((r) => r.crfId === crfId));
    if (state === FORM_STATE.submitted) submitted += 1;
    else if (state === FORM_STATE.incomplete) incomplete += 1;
  }
  return { total: expected.length, submitted, incomplete };
}

/** Titles of the study's CRF items, from the newest version of each CRF. */
async function itemTitles(db: Db, studyId: number) {
  const rows = await db
    .select({ definition: crfVersions.definition })
    .from(crfVersions)
    .innerJoin(crfs, and(eq(crfs.id, crfVersions.crfId), eq(crfs.currentVersion, crfVersions.version)))
    .where(eq(crfs.studyId, studyId));
  const titles = new Map<string, string>();
  const walk = (nodes: CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && !titles.has(node.name)) titles.set(node.name, node.title);
      walk(node.children ?? []);
    }
  };
  for (const row of rows) walk((row.definition as CrfDefinition).children);
  return titles;
}

export async function recordColumns(ctx: AppContext, studyId: number) {
  const { study, baseConfig } = await studyOf(ctx.db, studyId);
  const titles = study.displayCrfColumn.length > 0 ? await itemTitles(ctx.db, studyId) : new Map<string, string>();
  return [
    ...baseConfig
      .filter((f) => f.display)
      .map((f) => ({
        key: f.name,
        title: f.header,
        source: 'base' as const,
        width: f.name === 'identificationCode' ? 140 : 120,
      })),
    ...study.displayCrfColumn.map((name) => ({
      key: name,
      title: titles.get(name) ?? name,
      source: 'crf' as const,
      width: 150,
    })),
  ];
}

export async function setRecordState(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  state: number,
  reason?: string,
) {
  if (state === 2 && !reason?.trim()) throw AppError.badRequest('subject_record.reason_required', '请填写退出原因');
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)))
      .for('update');
    if (!record) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId });
    if (record.state === state) return;
    await tx
      .update(subjectRecords)
      .set({ state, updatedAt: ctx.clock() })
      .where(eq(subjectRecords.id, subjectRecordId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: record.studyId,
        subjectRecordId,
        action: 'subject.state',
        itemName: 'state',
        oldValue: record.state,
        newValue: state,
        reason: reason ?? null,
      },
    ]);
  });
}

/** Soft delete: the casebook disappears from lists, stays in the database, and can be restored. */
export async function deleteRecord(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  reason: string,
  restore = false,
) {
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx.select().from(subjectRecords).where(eq(subjectRecords.id, subjectRecordId)).for('update');
    if (!record || Boolean(record.deletedAt) === !restore) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId, wholeCasebook: true });
    const deletedAt = restore ? null : ctx.clock();
    if (restore) {
      const [subject] = await tx.select().from(subjects).where(eq(subjects.id, record.subjectId));
      if (subject && (await isCodeTaken(tx, record.studyId, subject.identificationCode, subject.id))) {
        throw AppError.conflict('subject.code_taken', `${MSG.codeTaken}，无法恢复`);
      }
      if (subject?.idNumberHash) {
        const [twin] = await tx
          .select({ id: subjects.id })
          .from(subjects)
          .where(
            and(
              eq(subjects.studyId, record.studyId),
              eq(subjects.idNumberHash, subject.idNumberHash),
              isNull(subjects.deletedAt),
            ),
          );
        if (twin && twin.id !== subject.id) {
          throw AppError.conflict('subject.id_number_taken', `${MSG.idNumberTaken}，无法恢复`);
        }
      }
    }
    await tx
      .update(subjectRecords)
      .set({ deletedAt, updatedAt: ctx.clock() })
      .where(eq(subjectRecords.id, subjectRecordId));
    await tx.update(subjects).set({ deletedAt, updatedAt: ctx.clock() }).where(eq(subjects.id, record.subjectId));
    await audit(tx, user, ctx.clock(), [
      { studyId: record.studyId, subjectRecordId, action: restore ? 'subject.restore' : 'subject.delete', reason },
    ]);
  });
}

/**
 * The investigator's signature over a casebook (21 CFR Part 11 §11.200): the password is
 * re-entered at signing, and the signature records signer, meaning and time.
 */
export async function signRecord(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  password: string,
  meaning?: string,
) {
  await reauthenticate(ctx, user, password, () => AppError.badRequest('sign.password_wrong', '密码错误，签名未完成'));
  const [study] = await ctx.db
    .select({ signConfig: studies.signConfig })
    .from(studies)
    .where(eq(studies.studyId, access.studyId));
  const text = meaning?.trim() || study?.signConfig.meaning || '本人确认以上数据真实、准确、完整';
  const id = await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
    if (!record) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId });
    const [row] = await tx
      .insert(signatures)
      .values({
        studyId: record.studyId,
        subjectRecordId,
        userId: user.userId,
        signerName: user.name,
        meaning: text,
        signedAt: ctx.clock(),
      })
      .returning({ id: signatures.id });
    await audit(tx, user, ctx.clock(), [
      { studyId: record.studyId, subjectRecordId, action: 'subject.sign', newValue: { meaning: text }, reason: text },
    ]);
    return row!.id;
  });
  return (await listSignatures(ctx, subjectRecordId)).find((s) => s.id === id)!;
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
