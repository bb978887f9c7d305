import { http } from './request';

/** One of the caller's REDCap API tokens (docs/redcap-api.md); the token itself is never listed. */
export interface ApiTokenRow {
  id: number;
  studyId: number;
  studyName: string;
  createTime: string;
  lastUsedTime: string | null;
  revokeTime: string | null;
}

export interface CreatedApiToken {
  id: number;
  studyId: number;
  /** Shown once: the server keeps only its hash. */
  token: string;
  createTime: string;
}

const BASE = '/api/system/user/profile/apiToken';

export const apiTokenApi = {
  list: () => http.get<ApiTokenRow[]>(BASE),
  studies: () => http.get<Array<{ studyId: number; studyName: string }>>(`${BASE}/studies`),
  create: (studyId: number) => http.post<CreatedApiToken>(BASE, { studyId }),
  revoke: (id: number) => http.delete<null>(`${BASE}/${id}`),
};
