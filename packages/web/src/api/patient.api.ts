import {
  MSG,
  type ConsultQuestionInput,
  type PatientBindBody,
  type PatientBindResult,
  type PatientConsultAsked,
  type PatientConsult,
  type PatientForm,
  type PatientFormSaveBody,
  type PatientFormSaveResult,
  type PatientHome,
} from '@ecrf/core';
import type { MessageOptState } from './messages.api';

/**
 * The patient pages' own calls: a patient session token (not a staff token) in the X-Patient-Token header,
 * against the public /api/ignore/patient routes (docs/patient-portal.md). Kept apart from the staff request
 * wrapper so a staff session and a patient session in one browser never mix. Requests and answers are core's
 * contract (patient-portal-contract.ts).
 */
const TOKEN_KEY = 'edc_patient_token';

export const patientToken = {
  get: () => window.localStorage.getItem(TOKEN_KEY),
  set: (token: string) => window.localStorage.setItem(TOKEN_KEY, token),
  clear: () => window.localStorage.removeItem(TOKEN_KEY),
};

export class PatientApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const token = patientToken.get();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers['x-patient-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = (await res.json().catch(() => null)) as { code?: number; msg?: string; data?: unknown } | null;
  if (!res.ok || !envelope || envelope.code !== 200) {
    if (res.status === 401) patientToken.clear();
    throw new PatientApiError(res.status, envelope?.msg ?? MSG.systemError, envelope?.data ?? null);
  }
  return envelope.data as T;
}

const BASE = '/api/ignore/patient';

export const patientApi = {
  /** The study's name comes with the binding: no public call tells it by the study's id alone. */
  bind: (studyId: number, code: string) =>
    call<PatientBindResult>('POST', `${BASE}/bind`, { studyId, code } satisfies PatientBindBody),
  home: () => call<PatientHome>('GET', `${BASE}/home`),
  form: (crfId: number) => call<PatientForm>('GET', `${BASE}/forms/${crfId}`),
  save: (crfId: number, body: PatientFormSaveBody) =>
    call<PatientFormSaveResult>('POST', `${BASE}/forms/${crfId}`, body),
  logout: () => call<null>('POST', `${BASE}/logout`),
  consults: () => call<PatientConsult[]>('GET', `${BASE}/consult`),
  ask: (body: ConsultQuestionInput) => call<PatientConsultAsked>('POST', `${BASE}/consult`, body),
  /** 消息提醒 (issue 38): whether the patient opted out of reminders, and opting out. */
  messageOptState: () => call<MessageOptState>('GET', `${BASE}/messages/opt-out`),
  optOutMessages: () => call<MessageOptState | null>('POST', `${BASE}/messages/opt-out`, {}),
};

/** Binds with a code and keeps the patient session; answers nothing, throws PatientApiError when refused. */
export async function bindAndKeep(studyId: number, code: string) {
  const { token } = await patientApi.bind(studyId, code);
  patientToken.set(token);
}
