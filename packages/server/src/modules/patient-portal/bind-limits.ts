import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { patientBindCodes } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { KeyValueStore } from '../../shared/kv.js';

/**
 * Wrong binding codes are counted three ways within a window, so that one person's mistakes lock out only
 * that person: a clinic's patients bind from one address behind NAT, and ten typos among them used to lock the
 * right code of the eleventh out too.
 *
 * - per address: a ceiling high enough for a clinic's typos and far too low for guessing (≈ 8.5 × 10¹¹ codes:
 *   a year of 100 tries in every window from one address finds one of a study's 100 live codes with odds of
 *   about 1 in 2,400);
 * - per code value (the study and the code's SHA-256, from any address): the same typo, or an old link opened
 *   again and again, is refused for the rest of the window; other codes from the same address go on;
 * - per patient: a code that was the patient's but is spent, revoked or expired counts against that patient, and
 *   past the limit every code of the patient, the live one too, waits out the window: someone replaying a
 *   patient's old messages gets no further than five tries.
 */
export const BIND_FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const BIND_ADDRESS_FAILURE_LIMIT = 100;
export const BIND_CODE_FAILURE_LIMIT = 5;
export const BIND_PATIENT_FAILURE_LIMIT = 5;

const locked = () => new AppError(429, 'patient.bind_locked', '尝试次数过多，请稍后再试');

export function bindLimits(kv: KeyValueStore, studyId: number, codeHash: string, client: string) {
  const address = `patient-bind:${client}`;
  const code = `patient-bind-code:${studyId}:${codeHash}`;
  const patient = (subjectId: number) => `patient-bind-patient:${studyId}:${subjectId}`;
  const over = async (key: string, limit: number) => Number((await kv.get(key)) ?? 0) >= limit;
  return {
    /** Before the code is looked up: the address's ceiling and this code value's own count. */
    async checkRequest() {
      if ((await over(address, BIND_ADDRESS_FAILURE_LIMIT)) || (await over(code, BIND_CODE_FAILURE_LIMIT))) {
        throw locked();
      }
    },
    /** Once the code names its patient. */
    async checkPatient(subjectId: number) {
      if (await over(patient(subjectId), BIND_PATIENT_FAILURE_LIMIT)) throw locked();
    },
    async failed(subjectId: number | null) {
      await kv.incr(address, BIND_FAILURE_WINDOW_MS);
      await kv.incr(code, BIND_FAILURE_WINDOW_MS);
      if (subjectId !== null) await kv.incr(patient(subjectId), BIND_FAILURE_WINDOW_MS);
    },
  };
}

/** The patient a code was issued to in the study, whatever its state, and whether it can still bind. */
export async function codeOwner(db: Db, studyId: number, codeHash: string, now: Date) {
  const [row] = await db
    .select({
      subjectId: patientBindCodes.subjectId,
      usedAt: patientBindCodes.usedAt,
      revokedAt: patientBindCodes.revokedAt,
      expiresAt: patientBindCodes.expiresAt,
    })
    .from(patientBindCodes)
    .where(and(eq(patientBindCodes.studyId, studyId), eq(patientBindCodes.codeHash, codeHash)));
  if (!row) return null;
  return { subjectId: row.subjectId, live: !row.usedAt && !row.revokedAt && row.expiresAt.getTime() > now.getTime() };
}
