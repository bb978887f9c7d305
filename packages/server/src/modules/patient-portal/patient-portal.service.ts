import crypto from 'node:crypto';
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { maskName } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfs,
  patientBindCodes,
  patientDiseaseNotes,
  patientPortalSettings,
  patientReportedCrfs,
  patientSessions,
  studyDiseases,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { IDENTIFIERS_PERMISSION } from '../subjects/subject.service.js';
import { devIdentityProvider, type PatientIdentityProvider } from './patient-identity.js';

// The portal's settings, its patient list and disease education, staff side; binding is in
// patient-binding.service.ts, the patient's forms in patient-forms.service.ts.

/** The trail's name for what a patient wrote (staff read 患者填写 beside the patient's study code). */
export const PATIENT_AUTHOR = '患者填写';

export const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
export const normaliseCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

let provider: PatientIdentityProvider = devIdentityProvider;
/** Puts a real provider (the WeChat official account's OAuth) in place of the development one. */
export function setIdentityProvider(next: PatientIdentityProvider) {
  provider = next;
}

/** The provider in place now (the one setIdentityProvider put there last). */
export const identityProvider = () => provider;

/** The audit trail's author for a patient's own acts: no staff user, the patient's study code in the name. */
export function patientActor(identificationCode: string): CurrentUser {
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

export async function settingsRow(db: Db, studyId: number) {
  const [row] = await db.select().from(patientPortalSettings).where(eq(patientPortalSettings.studyId, studyId));
  return row ?? { studyId, bindEnabled: true, appId: null, welcome: null };
}

export async function proCrfIds(db: Db, studyId: number): Promise<number[]> {
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
  const { list: rows, total } = await pagedQuery(
    ctx.db
      .select({ total: count() })
      .from(subjects)
      .innerJoin(subjectRecords, eq(subjectRecords.subjectId, subjects.id))
      .where(where),
    ctx.db
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
      .$dynamic(),
    page,
  );
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
    total,
  };
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
