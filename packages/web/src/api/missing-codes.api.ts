import { useQuery } from '@tanstack/react-query';
import type { MissingCode } from '@ecrf/core';
import { http, type RequestOptions } from './request';
import { queryKeys } from './query-keys';

/** 缺失原因 (issue 37): a study's missing-data codes, as core's MissingCode. */
export type { MissingCode } from '@ecrf/core';

/** Under the study's settings, so that saving any of them refreshes the codes too. */
export const missingCodesKey = (studyId: number) => [...queryKeys.studyConfig.all(), 'missing-codes', studyId] as const;

export const missingCodesApi = {
  /** Every member reads them (the CRF page's labels and 缺失 menu). */
  get: (studyId: number, options?: RequestOptions) =>
    http.get<{ codes: MissingCode[] }>('/api/business/study/missing_codes', { ...options, params: { studyId } }),
  /** study:config; a code some record uses is refused with the count, in the server's words. */
  put: (studyId: number, codes: MissingCode[]) =>
    http.put<{ codes: MissingCode[] }>('/api/business/study/missing_codes', { studyId, codes }),
};

const NONE: readonly MissingCode[] = [];

/**
 * The study's codes. Quiet: the form stays usable without them (a marked item then shows its bare code and no
 * 缺失 menu is offered).
 */
export function useMissingCodes(studyId: number): readonly MissingCode[] {
  const query = useQuery({
    queryKey: missingCodesKey(studyId),
    queryFn: () => missingCodesApi.get(studyId, { silent: true }).then((res) => res.data.codes),
    enabled: studyId > 0,
    staleTime: 5 * 60_000,
  });
  return query.data ?? NONE;
}
