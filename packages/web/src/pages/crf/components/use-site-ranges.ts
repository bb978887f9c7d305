import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { overridesFromUsed, type RangeOverride } from '@ecrf/core';
import { labRangesApi } from '../../../api/lab-ranges.api';
import { queryKeys } from '../../../api/query-keys';

const NONE: Readonly<Record<string, RangeOverride>> = Object.freeze({});

/**
 * 参考范围 (issue 37): the site ranges the open form is judged by (its ↑/↓, recognition's judgement). A record
 * that stored the ranges its last save used keeps them; before that (a new record, or one saved before site ranges
 * were kept) the server answers the ones its save would use now, so the nurse sees ↑/↓ by the site range while
 * typing. Until that answer arrives, the items' own ranges.
 */
export function useSiteRanges(p: {
  studyId: number;
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
  stored: Readonly<Record<string, unknown>> | null | undefined;
  /** The form is open (its detail read). */
  ready: boolean;
}): Readonly<Record<string, RangeOverride>> {
  const { studyId, subjectRecordId, crfId, crfDataRecordId, stored, ready } = p;
  const query = useQuery({
    queryKey: [...queryKeys.crfRecord.formDetails(subjectRecordId, crfId), 'lab-ranges', crfDataRecordId ?? 'new'],
    queryFn: () => labRangesApi.applicable(studyId, subjectRecordId, crfId, crfDataRecordId).then((res) => res.data),
    enabled: ready && !stored && studyId > 0,
    staleTime: 60_000,
  });
  const applicable = query.data;
  return useMemo(() => (stored ? overridesFromUsed(stored) : (applicable ?? NONE)), [stored, applicable]);
}
