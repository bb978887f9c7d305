import crypto from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { patientBindCodes, patientSessions, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { livePatientOfStudy } from '../../shared/live-patient.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { bindLimits, codeOwner } from './bind-limits.js';
import {
  bindPath,
  identityProvider,
  normaliseCode,
  patientActor,
  settingsRow,
  sha256,
} from './patient-portal.service.js';

// Binding a patient's account: staff issue and revoke codes, the patient spends one and holds a session.

/** A binding code is good for a day: long enough to reach a patient by text message, short enough to go stale. */
export const BIND_CODE_TTL_MS = 24 * 60 * 60 * 1000;
/** A patient session lasts a week; binding again (a new code from staff) opens a new one. */
export const PATIENT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** No 0/O, 1/I/L: read aloud or copied from a text message without mistakes. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

function newCode(): string {
  const bytes = crypto.randomBytes(CODE_LENGTH);
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

// ---------------------------------------------------------------------------------------------------
// Staff side

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
    .where(livePatientOfStudy(studyId, subjectId));
  if (!row) throw AppError.notFound('subject.not_found', '患者不存在');
  return row;
}

/** Revokes the patient's binding codes not yet spent. */
async function revokeUnusedCodes(db: Db, studyId: number, subjectId: number, now: Date) {
  await db
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
}

/** Ends the patient's open sessions. */
async function endSessions(db: Db, studyId: number, subjectId: number, now: Date) {
  await db
    .update(patientSessions)
    .set({ revokedAt: now })
    .where(
      and(
        eq(patientSessions.studyId, studyId),
        eq(patientSessions.subjectId, subjectId),
        isNull(patientSessions.revokedAt),
      ),
    );
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
    await revokeUnusedCodes(tx, studyId, subjectId, now);
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
    await endSessions(tx, studyId, subjectId, now);
    await revokeUnusedCodes(tx, studyId, subjectId, now);
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
  const openId = await identityProvider().identify({
    studyId: input.studyId,
    appId: settings.appId,
    authCode: input.authCode,
  });
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
    await endSessions(tx, input.studyId, subject.id, now);
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
