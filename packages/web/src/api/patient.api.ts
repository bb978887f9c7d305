import { MSG, type CrfDefinition } from '@ecrf/core';

/**
 * The patient pages' own calls: a patient session token (not a staff token) in the X-Patient-Token header,
 * against the public /api/ignore/patient routes (docs/patient-portal.md). Kept apart from the staff request
 * wrapper so a staff session and a patient session in one browser never mix.
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

export interface PatientFormItem {
  crfId: number;
  title: string;
  /** 0 待填写, 1 填写中, 2 已提交 */
  state: 0 | 1 | 2;
  updateTime: string | null;
  /** The follow-up visit the form is due for, when one is open. */
  visitName: string | null;
}

export interface PatientHome {
  studyId: number;
  studyName: string;
  identificationCode: string;
  subjectName: string;
  welcome: string;
  disease: { title: string; content: string } | null;
  forms: PatientFormItem[];
}

export interface PatientForm {
  crf: { id: number; title: string; definition: CrfDefinition };
  visit: { visitName: string; plannedDate: string } | null;
  record: { crfDataRecordId: number; version: number; values: Record<string, unknown> } | null;
  state: 0 | 1 | 2;
  editable: boolean;
  initialValues: Record<string, unknown> | null;
  formValues: Record<string, Record<string, unknown>>;
  timeZone: string;
}

/** One of the patient's own questions (docs/content.md, Consultation): 0 待回复, 1 已回复, 2 已关闭. */
export interface PatientConsult {
  id: number;
  title: string;
  question: string;
  state: 0 | 1 | 2;
  answer: string | null;
  answeredAt: string | null;
  createdAt: string;
}

const BASE = '/api/ignore/patient';

export const patientApi = {
  /** The study's name comes with the binding: no public call tells it by the study's id alone. */
  bind: (studyId: number, code: string) =>
    call<{ token: string; expiresAt: string; studyName: string }>('POST', `${BASE}/bind`, { studyId, code }),
  home: () => call<PatientHome>('GET', `${BASE}/home`),
  form: (crfId: number) => call<PatientForm>('GET', `${BASE}/forms/${crfId}`),
  save: (
    crfId: number,
    body: { values: Record<string, unknown>; submit: boolean; crfDataRecordId?: number; version?: number },
  ) => call<{ crfDataRecordId: number; version: number; state: number }>('POST', `${BASE}/forms/${crfId}`, body),
  logout: () => call<null>('POST', `${BASE}/logout`),
  consults: () => call<PatientConsult[]>('GET', `${BASE}/consult`),
  ask: (body: { title: string; question: string }) => call<{ id: number }>('POST', `${BASE}/consult`, body),
};

/** Binds with a code and keeps the patient session; answers nothing, throws PatientApiError when refused. */
export async function bindAndKeep(studyId: number, code: string) {
  const { token } = await patientApi.bind(studyId, code);
  patientToken.set(token);
}
