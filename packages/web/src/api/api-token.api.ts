import type { ApiTokenRow, ApiTokenStudy, CreatedApiToken } from '@ecrf/core';
import { http } from './request';

/** The caller's REDCap API tokens (docs/redcap-api.md): core's contract (api-token-contract.ts). */
export type { ApiTokenRow, CreatedApiToken } from '@ecrf/core';

const BASE = '/api/system/user/profile/apiToken';

export const apiTokenApi = {
  list: () => http.get<ApiTokenRow[]>(BASE),
  studies: () => http.get<ApiTokenStudy[]>(`${BASE}/studies`),
  create: (studyId: number) => http.post<CreatedApiToken>(BASE, { studyId }),
  revoke: (id: number) => http.delete<null>(`${BASE}/${id}`),
};
