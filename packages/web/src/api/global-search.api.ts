import type { GlobalSearchGroup } from '@ecrf/core';
import { http } from './request';

export const globalSearchApi = {
  /** SHELL-33: grouped hits over what the caller may see; quiet, the box just shows nothing on a failure. */
  search: (key: string) =>
    http.get<GlobalSearchGroup[]>('/api/v1/base/other/searchall', { params: { key }, silent: true }),
  /** SHELL-32: announce the data scopes this client changed, so other open clients read them again. */
  addDataChange: (scopes: readonly string[], studyId: number | null) =>
    http.post<{ id: number; scopes: string[] }>(
      '/api/v1/base/other/addsysdatachangeinfo',
      { scope: scopes.join(','), ...(studyId !== null && { studyId }) },
      { silent: true },
    ),
};
