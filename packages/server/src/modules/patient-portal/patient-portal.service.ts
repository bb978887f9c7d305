import crypto from 'node:crypto';
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { FOLLOW_STATES, FORM_STATE, genderFromPatient, initialValues, maskName } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  followRecordCrfs,
  followRecords,
  patientBindCodes,
  patientDiseaseNotes,
  patientPortalSettings,
  patientReportedCrfs,
  patientSessions,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { actorOf, audit } from '../audit/audit.service.js';
import { definitionOf } from '../crf-data/crf-definitions.js';
import { isRepeatable } from '../crf-data/crf-data.service.js';
import { saveForm, type FormWriter } from '../crf-data/form-write.js';
import { otherFormValues } from '../crf-data/linked-values.service.js';
import { IDENTIFIERS_PERMISSION } from '../subjects/subject.service.js';
import { devIdentityProvider, type PatientIdentityProvider } from './patient-identity.js';
import { bindLimits, codeOwner } from './bind-limits.js';

/** A binding code is good for a day: long enough to reach a patient by text message, short enough to go stale. */
export const BIND_CODE_TTL_MS = 24 * 60 * 60 * 1000;
/** A patient session lasts a week; binding again (a new code from staff) opens a new one. */
export const PATIENT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** No 0/O, 1/I/L: read aloud or copied from a text message without mistakes. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
/** The trail's name for what a patient wrote (staff read 患者填写 beside the patient's study code). */
export const PATIENT_AUTHOR = '患者填写';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
export const normaliseCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

let provider: PatientIdentityProvider = devIdentityProvider;
/** Puts a real provider (the WeChat official account's OAuth) in place of the development one. */
export function setIdentityProvider(next: PatientIdentityProvider) {
  provider = next;
}

function newCode(): string {
  const bytes = crypto.randomBytes(CODE_LENGTH);
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

/** The audit trail's author for a patient's own acts: no staff user, the patient's study code in the name. */
function patientActor(identificationCode: string): CurrentUser {
  return {
    userId: 0,
    userName: identificationCode,
    name: PATIENT_AUTHOR,
    deptId: null,
    sessionId: '',
    admin: false,
    permissions: [],
    setPasswordMust: false,
  };
}

async function settingsRow(db: Db, studyId: number) {
  const [row] = await db.select().from(patientPortalSettings).where(eq(patientPortalSettings.studyId, studyId));
  return row ?? { studyId, bindEnabled: true, appId: null, welcome: null };
}

async function proCrfIds(db: Db, studyId: number): Promise<number[]> {
  const rows = await db
    .select({ crfId: patientReportedCrfs.crfId })
    .from(patientReportedCrfs)
    .where(eq(patientReportedCrfs.studyId, studyId))
    .orderBy(asc(patientReportedCrfs.crfId));
  return rows.map((r) => r.crfId);
}

/** Where a patient binds: the mobile page the study's QR code opens. */
export const bindPath = (studyId: number) => `/meil/bind?studyId=${studyId}`;

// ---------------------------------------------------------------------------------------------------
// Staff side

export async function getSettings(ctx: AppContext, access: StudyAccess) {
  const row = await settingsRow(ctx.db, access.studyId);
  const studyCrfs = await ctx.db
    .select({ id: crfs.id, title: crfs.title })
    .from(crfs)
    .where(eq(crfs.studyId, access.studyId))
    .orderBy(asc(crfs.id));
  return {
    bindEnabled: row.bindEnabled,
    appId: row.appId ?? '',
    welcome: row.welcome ?? '',
    proCrfIds: await proCrfIds(ctx.db, access.studyId),
    crfs: studyCrfs,
    bindPath: bindPath(access.studyId),
    provider: provider.name,
  };
}

export interface SettingsInput {
  bindEnabled: boolean;
  appId?: string | null;
  welcome?: string | null;
  proCrfIds: number[];
}

export async function saveSettings(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: SettingsInput) {
  const studyId = access.studyId;
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const wanted = [...new Set(input.proCrfIds)].sort((a, b) => a - b);
    if (wanted.length > 0) {
      const found = await tx
        .select({ id: crfs.id })
        .from(crfs)
        .where(and(eq(crfs.studyId, studyId), inArray(crfs.id, wanted)));
      if (found.length !== wanted.length) throw AppError.badRequest('patient.crf_not_found', 'CRF不存在');
    }
    const before = await settingsRow(tx, studyId);
    const beforeCrfs = await proCrfIds(tx, studyId);
    const values = {
      bindEnabled: input.bindEnabled,
      appId: input.appId?.trim() || null,
      welcome: input.welcome?.trim() || null,
      updatedBy: user.userId,
      updatedAt: now,
    };
    await tx
      .insert(patientPortalSettings)
      .values({ studyId, ...values })
      .onConflictDoUpdate({ target: patientPortalSettings.studyId, set: values });
    await tx.delete(patientReportedCrfs).where(eq(patientReportedCrfs.studyId, studyId));
    if (wanted.length > 0) {
      await tx.insert(patientReportedCrfs).values(wanted.map((crfId) => ({ studyId, crfId, createdAt: now })));
    }
    await audit(tx, user, now, [
      {
        studyId,
        action: 'patient.settings',
        oldValue: { bindEnabled: before.bindEnabled, appId: before.appId, proCrfIds: beforeCrfs },
        newValue: { bindEnabled: values.bindEnabled, appId: values.appId, proCrfIds: wanted },
      },
    ]);
  });
  return getSettings(ctx, access);
}

/** Patients of the study with their binding: bound (openId) or not, and a live code's expiry. */
export async function listPatients(
  ctx: AppContext,
  access: StudyAccess,
  filter: { bound?: boolean; keyword?: string },
  page: PageRequest,
) {
  const clear = hasStudyPermission(access, IDENTIFIERS_PERMISSION);
  // Only the patients at the caller's sites (分中心).
  const conditions = [eq(subjects.studyId, access.studyId), isNull(subjects.deletedAt)];
  const site = inCallerSites(access, subjects.deptId);
  if (site) conditions.push(site);
  if (filter.bound === true) conditions.push(isNotNull(subjects.openId));
  if (filter.bound === false) conditions.push(isNull(subjects.openId));
  if (filter.keyword) conditions.push(sql`${subjects.identificationCode} ilike ${`%${filter.keyword}%`}`);
  const where = and(...conditions);
  const rows = await ctx.db
    .select({
      id: subjects.id,
      identificationCode: subjects.identificationCode,
      subjectName: subjects.subjectName,
      diseaseCode: subjects.diseaseCode,
      openId: subjects.openId,
      subjectRecordId: subjectRecords.id,
    })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(where)
    .orderBy(desc(subjects.id))
    .limit(page.limit)
    .offset(page.offset);
  const [{ total } = { total: 0 }] = await ctx.db
    .select({ total: count() })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(where);
  const ids = rows.map((r) => r.id);
  const now = ctx.clock();
  const codes = ids.length
    ? await ctx.db
        .select({ subjectId: patientBindCodes.subjectId, expiresAt: patientBindCodes.expiresAt })
        .from(patientBindCodes)
        .where(
          and(
            eq(patientBindCodes.studyId, access.studyId),
            inArray(patientBindCodes.subjectId, ids),
            isNull(patientBindCodes.usedAt),
            isNull(patientBindCodes.revokedAt),
            gt(patientBindCodes.expiresAt, now),
          ),
        )
    : [];
  const sessions = ids.length
    ? await ctx.db
        .select({ subjectId: patientSessions.subjectId, boundAt: sql<Date>`max(${patientSessions.createdAt})` })
        .from(patientSessions)
        .where(
          and(
            eq(patientSessions.studyId, access.studyId),
            inArray(patientSessions.subjectId, ids),
            isNull(patientSessions.revokedAt),
          ),
        )
        .groupBy(patientSessions.subjectId)
    : [];
  return {
    list: rows.map((r) => ({
      subjectId: r.id,
      subjectRecordId: r.subjectRecordId,
      identificationCode: r.identificationCode,
      subjectName: clear ? r.subjectName : maskName(r.subjectName),
      diseaseCode: r.diseaseCode,
      bound: r.openId !== null,
      // The account's id names a person outside the study: shown shortened, enough to tell two apart.
      openId: r.openId ? `${r.openId.slice(0, 8)}…` : null,
      boundAt: r.openId ? (sessions.find((s) => s.subjectId === r.id)?.boundAt ?? null) : null,
      codeExpiresAt: codes.find((c) => c.subjectId === r.id)?.expiresAt ?? null,
    })),
    total: Number(total),
  };
}

async function liveSubject(db: Db, studyId: number, subjectId: number) {
  const [row] = await db
    .select({
      id: subjects.id,
      identificationCode: subjects.identificationCode,
      openId: subjects.openId,
      subjectRecordId: subjectRecords.id,
    })
    .from(subjects)
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .where(
      and(
        eq(subjects.id, subjectId),
        eq(subjects.studyId, studyId),
        isNull(subjects.deletedAt),
        isNull(subjectRecords.deletedAt),
      ),
    );
  if (!row) throw AppError.notFound('subject.not_found', '患者不存在');
  return row;
}

/**
 * Issues a one-time binding code for a patient: shown once to staff (who pass it on), stored as its
 * SHA-256 only. Earlier unused codes of the patient are revoked first; a partial unique index keeps one live.
 */
export async function issueBindCode(ctx: AppContext, user: CurrentUser, access: StudyAccess, subjectId: number) {
  const studyId = access.studyId;
  const now = ctx.clock();
  const settings = await settingsRow(ctx.db, studyId);
  if (!settings.bindEnabled) throw AppError.forbidden('patient.bind_disabled', '该项目未开放患者绑定');
  const code = newCode();
  const expiresAt = new Date(now.getTime() + BIND_CODE_TTL_MS);
  await ctx.db.transaction(async (tx) => {
    const subject = await liveSubject(tx, studyId, subjectId);
    await tx
      .update(patientBindCodes)
      .set({ revokedAt: now })
      .where(
        and(
          eq(patientBindCodes.studyId, studyId),
          eq(patientBindCodes.subjectId, subjectId),
          isNull(patientBindCodes.usedAt),
          isNull(patientBindCodes.revokedAt),
        ),
      );
    await tx.insert(patientBindCodes).values({
      studyId,
      subjectId,
      codeHash: sha256(code),
      expiresAt,
      createdBy: user.userId,
      createdAt: now,
    });
    await audit(tx, user, now, [
      { studyId, subjectRecordId: subject.subjectRecordId, action: 'patient.bind_code', newValue: { expiresAt } },
    ]);
  });
  return { code, expiresAt, bindPath: bindPath(studyId) };
}

/** Unbinds a patient: the openId is cleared, their sessions end and unused codes are revoked. */
export async function unbind(ctx: AppContext, user: CurrentUser, access: StudyAccess, subjectId: number) {
  const studyId = access.studyId;
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const subject = await liveSubject(tx, studyId, subjectId);
    await tx.update(subjects).set({ openId: null, updatedAt: now }).where(eq(subjects.id, subjectId));
    await tx
      .update(patientSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(patientSessions.studyId, studyId),
          eq(patientSessions.subjectId, subjectId),
          isNull(patientSessions.revokedAt),
        ),
      );
    await tx
      .update(patientBindCodes)
      .set({ revokedAt: now })
      .where(
        and(
          eq(patientBindCodes.studyId, studyId),
          eq(patientBindCodes.subjectId, subjectId),
          isNull(patientBindCodes.usedAt),
          isNull(patientBindCodes.revokedAt),
        ),
      );
    await audit(tx, user, now, [
      {
        studyId,
        subjectRecordId: subject.subjectRecordId,
        action: 'patient.unbind',
        itemName: 'openId',
        oldValue: subject.openId,
        newValue: null,
      },
    ]);
  });
}

/** The study's diseases with the education text a bound patient of each disease reads. */
export async function listDiseaseNotes(ctx: AppContext, access: StudyAccess) {
  const diseases = await ctx.db
    .select({ diseaseCode: studyDiseases.diseaseCode, diseaseName: studyDiseases.diseaseName })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, access.studyId))
    .orderBy(asc(studyDiseases.id));
  const notes = await ctx.db.select().from(patientDiseaseNotes).where(eq(patientDiseaseNotes.studyId, access.studyId));
  return diseases.map((d) => {
    const note = notes.find((n) => n.diseaseCode === d.diseaseCode);
    return { ...d, title: note?.title ?? '', content: note?.content ?? '', updateTime: note?.updatedAt ?? null };
  });
}

export async function saveDiseaseNote(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: { diseaseCode: string; title: string; content: string },
) {
  const studyId = access.studyId;
  const now = ctx.clock();
  const [disease] = await ctx.db
    .select({ id: studyDiseases.id })
    .from(studyDiseases)
    .where(and(eq(studyDiseases.studyId, studyId), eq(studyDiseases.diseaseCode, input.diseaseCode)));
  if (!disease) throw AppError.notFound('study.disease_not_found', '病种不存在');
  const values = { title: input.title.trim(), content: input.content, updatedBy: user.userId, updatedAt: now };
  await ctx.db
    .insert(patientDiseaseNotes)
    .values({ studyId, diseaseCode: input.diseaseCode, ...values })
    .onConflictDoUpdate({ target: [patientDiseaseNotes.studyId, patientDiseaseNotes.diseaseCode], set: values });
  return listDiseaseNotes(ctx, access);
}

// ---------------------------------------------------------------------------------------------------
// Patient side

const BIND_REFUSED = '绑定码无效或已过期';

/**
 * Binds the account on the phone to the patient the code was issued for: the code is spent (once, by
 * a conditional update), the provider names the account, the openId goes on the patient and a patient
 * session opens. Wrong, spent, expired, revoked codes and codes of another study all answer alike, and
 * nothing about the study (its name, whether it exists, whether binding is open) is told before a live code
 * of it is shown: an unauthenticated caller learns only what the code proves. Failures are limited per
 * address, code and patient (bind-limits.ts).
 */
export async function bind(
  ctx: AppContext,
  input: { studyId: number; code: string; authCode?: string | null },
  client: string,
) {
  const codeHash = sha256(normaliseCode(input.code));
  const limits = bindLimits(ctx.kv, input.studyId, codeHash, client);
  await limits.checkRequest();
  const now = ctx.clock();
  const owner = await codeOwner(ctx.db, input.studyId, codeHash, now);
  if (owner) await limits.checkPatient(owner.subjectId);
  const refuse = async () => {
    await limits.failed(owner?.subjectId ?? null);
    return AppError.badRequest('patient.code_invalid', BIND_REFUSED);
  };
  if (!owner?.live) throw await refuse();
  const settings = await settingsRow(ctx.db, input.studyId);
  if (!settings.bindEnabled) throw AppError.forbidden('patient.bind_disabled', '该项目未开放患者绑定');
  const openId = await provider.identify({ studyId: input.studyId, appId: settings.appId, authCode: input.authCode });
  const secret = crypto.randomBytes(32).toString('base64url');
  const token = `${input.studyId}.${secret}`;
  const expiresAt = new Date(now.getTime() + PATIENT_SESSION_TTL_MS);
  const bound = await ctx.db.transaction(async (tx) => {
    const [spent] = await tx
      .update(patientBindCodes)
      .set({ usedAt: now })
      .where(
        and(
          eq(patientBindCodes.studyId, input.studyId),
          eq(patientBindCodes.codeHash, codeHash),
          isNull(patientBindCodes.usedAt),
          isNull(patientBindCodes.revokedAt),
          gt(patientBindCodes.expiresAt, now),
        ),
      )
      .returning({ subjectId: patientBindCodes.subjectId });
    if (!spent) return null;
    const subject = await liveSubject(tx, input.studyId, spent.subjectId);
    await tx.update(subjects).set({ openId, updatedAt: now }).where(eq(subjects.id, subject.id));
    // One account per patient: a new binding ends the sessions of the account bound before.
    await tx
      .update(patientSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(patientSessions.studyId, input.studyId),
          eq(patientSessions.subjectId, subject.id),
          isNull(patientSessions.revokedAt),
        ),
      );
    await tx.insert(patientSessions).values({
      studyId: input.studyId,
      subjectId: subject.id,
      tokenHash: sha256(token),
      openId,
      expiresAt,
      createdAt: now,
    });
    await audit(tx, patientActor(subject.identificationCode), now, [
      {
        studyId: input.studyId,
        subjectRecordId: subject.subjectRecordId,
        action: 'patient.bind',
        itemName: 'openId',
        oldValue: subject.openId,
        newValue: openId,
      },
    ]);
    const [study] = await tx
      .select({ studyName: studies.studyName })
      .from(studies)
      .where(eq(studies.studyId, input.studyId));
    return { studyName: study!.studyName };
  });
  if (!bound) throw await refuse();
  return { token, expiresAt, studyName: bound.studyName };
}

export interface PatientSession {
  sessionId: number;
  studyId: number;
  subjectId: number;
  subjectRecordId: number;
  identificationCode: string;
  subjectName: string;
  diseaseCode: string;
  gender: number;
  timeZone: string;
}

const SESSION_OVER = '登录已失效，请重新绑定';

/** The patient a token opens, or 401: live session, live patient, and still bound to the session's account. */
export async function patientOfToken(ctx: AppContext, token: string | undefined): Promise<PatientSession> {
  const match = token ? /^(\d{1,9})\.([\w-]{20,100})$/.exec(token) : null;
  if (!token || !match) throw AppError.unauthorized('patient.unauthenticated', SESSION_OVER);
  const studyId = Number(match[1]);
  const [row] = await ctx.db
    .select({
      sessionId: patientSessions.id,
      studyId: patientSessions.studyId,
      subjectId: subjects.id,
      subjectRecordId: subjectRecords.id,
      identificationCode: subjects.identificationCode,
      subjectName: subjects.subjectName,
      diseaseCode: subjects.diseaseCode,
      gender: subjects.gender,
      timeZone: studies.timeZone,
    })
    .from(patientSessions)
    .innerJoin(subjects, and(eq(subjects.id, patientSessions.subjectId), eq(subjects.openId, patientSessions.openId)))
    .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
    .innerJoin(studies, eq(studies.studyId, patientSessions.studyId))
    .where(
      and(
        eq(patientSessions.studyId, studyId),
        eq(patientSessions.tokenHash, sha256(token)),
        isNull(patientSessions.revokedAt),
        gt(patientSessions.expiresAt, ctx.clock()),
        isNull(subjects.deletedAt),
        isNull(subjectRecords.deletedAt),
        isNull(studies.deletedAt),
      ),
    );
  if (!row) throw AppError.unauthorized('patient.unauthenticated', SESSION_OVER);
  return row;
}

export async function logout(ctx: AppContext, patient: PatientSession) {
  await ctx.db
    .update(patientSessions)
    .set({ revokedAt: ctx.clock() })
    .where(and(eq(patientSessions.studyId, patient.studyId), eq(patientSessions.id, patient.sessionId)));
}

/** The patient's home: the study, the patient's own code and masked name, the greeting and the disease note. */
export async function patientHome(ctx: AppContext, patient: PatientSession) {
  const [study] = await ctx.db
    .select({ studyName: studies.studyName })
    .from(studies)
    .where(eq(studies.studyId, patient.studyId));
  const settings = await settingsRow(ctx.db, patient.studyId);
  const [note] = await ctx.db
    .select({ title: patientDiseaseNotes.title, content: patientDiseaseNotes.content })
    .from(patientDiseaseNotes)
    .where(
      and(eq(patientDiseaseNotes.studyId, patient.studyId), eq(patientDiseaseNotes.diseaseCode, patient.diseaseCode)),
    );
  return {
    studyId: patient.studyId,
    studyName: study?.studyName ?? '',
    identificationCode: patient.identificationCode,
    subjectName: maskName(patient.subjectName),
    welcome: settings.welcome ?? '',
    disease: note ?? null,
    forms: await patientForms(ctx, patient),
  };
}

async function latestRecord(db: Db, subjectRecordId: number, crfId: number) {
  const [row] = await db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subjectRecordId),
        eq(crfDataRecords.crfId, crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(desc(crfDataRecords.id))
    .limit(1);
  return row;
}

/** 待填写 (no record), 填写中 (saved, not submitted), 已提交. */
const patientState = (record: { state: number } | undefined) =>
  !record ? 0 : record.state === FORM_STATE.submitted ? 2 : 1;

/**
 * The patient's open follow-up slot for a form: a due or overdue visit (待随访, 已超窗) naming the form with no
 * record yet, the earliest first. A patient-reported form filled while one is open is filled for that visit.
 */
async function openVisitSlot(db: Db, patient: PatientSession, crfId: number) {
  const [slot] = await db
    .select({
      followRecordCrfId: followRecordCrfs.id,
      visitName: followRecords.visitName,
      plannedDate: followRecords.plannedDate,
    })
    .from(followRecordCrfs)
    .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
    .where(
      and(
        eq(followRecordCrfs.studyId, patient.studyId),
        eq(followRecords.subjectRecordId, patient.subjectRecordId),
        eq(followRecordCrfs.crfId, crfId),
        isNull(followRecordCrfs.crfDataRecordId),
        inArray(followRecords.state, [FOLLOW_STATES.DUE, FOLLOW_STATES.OVERDUE]),
      ),
    )
    .orderBy(asc(followRecords.plannedDate), asc(followRecords.id))
    .limit(1);
  return slot ?? null;
}

type DataRecord = typeof crfDataRecords.$inferSelect;

/**
 * The record a patient works on for a form. Without an open visit: the newest record. With one: the newest
 * record while it is an unsubmitted draft of no other visit; otherwise a new record for the visit when the
 * form repeats (a single form keeps its one record).
 */
async function workingRecord(
  db: Db,
  patient: PatientSession,
  crfId: number,
  slot: { followRecordCrfId: number } | null,
): Promise<DataRecord | undefined> {
  const latest = await latestRecord(db, patient.subjectRecordId, crfId);
  if (!slot || !latest) return latest;
  if (latest.state !== FORM_STATE.submitted) {
    const [linked] = await db
      .select({ id: followRecordCrfs.id })
      .from(followRecordCrfs)
      .where(and(eq(followRecordCrfs.studyId, patient.studyId), eq(followRecordCrfs.crfDataRecordId, latest.id)));
    if (!linked) return latest;
  }
  return (await isRepeatable(db, crfId)) ? undefined : latest;
}

/**
 * The forms assigned to the patient: the study's patient-reported CRFs, each with the patient's progress on the
 * record they work on and the follow-up visit it is for, when one is open.
 */
export async function patientForms(ctx: AppContext, patient: PatientSession) {
  const rows = await ctx.db
    .select({ crfId: crfs.id, title: crfs.title })
    .from(patientReportedCrfs)
    .innerJoin(crfs, eq(crfs.id, patientReportedCrfs.crfId))
    .where(eq(patientReportedCrfs.studyId, patient.studyId))
    .orderBy(asc(crfs.id));
  const out = [];
  for (const row of rows) {
    const slot = await openVisitSlot(ctx.db, patient, row.crfId);
    const record = await workingRecord(ctx.db, patient, row.crfId, slot);
    out.push({
      ...row,
      state: patientState(record),
      updateTime: record?.updatedAt ?? null,
      visitName: slot?.visitName ?? null,
    });
  }
  return out;
}

async function requireAssigned(db: Db, patient: PatientSession, crfId: number) {
  const [row] = await db
    .select({ crfId: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
    .from(patientReportedCrfs)
    .innerJoin(crfs, eq(crfs.id, patientReportedCrfs.crfId))
    .where(and(eq(patientReportedCrfs.studyId, patient.studyId), eq(patientReportedCrfs.crfId, crfId)));
  // Any other form, of this study or another, is not the patient's: the same answer either way.
  if (!row) throw AppError.forbidden('patient.form_forbidden', '无权填写该表单');
  return row;
}

/** One assigned form: its definition, the patient's values and what they may still do. */
export async function patientForm(ctx: AppContext, patient: PatientSession, crfId: number) {
  const crf = await requireAssigned(ctx.db, patient, crfId);
  const slot = await openVisitSlot(ctx.db, patient, crfId);
  const record = await workingRecord(ctx.db, patient, crfId, slot);
  const definition = await definitionOf(ctx.db, crfId, record?.crfVersion ?? crf.currentVersion);
  const pro = new Set(await proCrfIds(ctx.db, patient.studyId));
  return {
    crf: { id: crf.crfId, title: crf.title, definition },
    visit: slot ? { visitName: slot.visitName, plannedDate: slot.plannedDate } : null,
    record: record ? { crfDataRecordId: record.id, version: record.version, values: record.values } : null,
    state: patientState(record),
    editable: record?.state !== FORM_STATE.submitted,
    initialValues: record
      ? null
      : initialValues(definition, {
          now: ctx.clock(),
          timeZone: patient.timeZone,
          gender: genderFromPatient(patient.gender),
        }),
    // What form("标题", "item") reads, from the patient's own patient-reported forms only: never staff's forms.
    formValues: await otherFormValues(ctx.db, patient.studyId, patient.subjectRecordId, definition, (id) =>
      pro.has(id),
    ),
    timeZone: patient.timeZone,
  };
}

/**
 * A patient saves or submits an assigned form through the one write path (form-write.ts), as its author: the
 * form page's rules (the engine on the server, submit rules, stale versions), audit rows, signatures and
 * verification marks voided, the event. The portal only says which record: the one the patient works on (a new
 * one for an open visit of a repeating form). A submitted form is closed to the patient: a correction is staff's,
 * with a reason.
 */
export async function savePatientForm(
  ctx: AppContext,
  patient: PatientSession,
  crfId: number,
  input: { values: Record<string, unknown>; submit: boolean; crfDataRecordId?: number | null; version?: number | null },
) {
  const writer: FormWriter = {
    kind: 'patient',
    subjectRecordId: patient.subjectRecordId,
    author: actorOf(patientActor(patient.identificationCode)),
    timeZone: patient.timeZone,
  };
  const written = await saveForm(ctx, writer, async (tx) => {
    const slot = await openVisitSlot(tx, patient, crfId);
    const working = await workingRecord(tx, patient, crfId, slot);
    return {
      subjectRecordId: patient.subjectRecordId,
      crfId,
      crfDataRecordId: working?.id ?? null,
      version: input.version ?? null,
      read: { crfDataRecordId: input.crfDataRecordId ?? null, version: input.version ?? null },
      values: input.values,
      submit: input.submit,
      reason: null,
      followRecordCrfId: slot?.followRecordCrfId ?? null,
    };
  });
  return {
    crfDataRecordId: written.crfDataRecordId,
    version: written.version,
    state: patientState({ state: written.state }),
    changedItems: written.changedItems,
  };
}
