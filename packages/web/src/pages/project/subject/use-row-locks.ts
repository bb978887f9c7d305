import { useCallback } from 'react';
import { useQuery } from '@tanstack/react-query';
import { lockApi } from '../../../api/lock.api';
import { queryKeys } from '../../../api/query-keys';
import type { SubjectRecordRow } from '../../../api/subject.api';

/**
 * Which rows of the patient list are locked (docs/multi-centre.md): the study's lock, the patient's site's lock, or
 * the casebook's own; a form lock marks its form, not the row. A site locked above the patient's department is
 * named by the CRF page and by the refusal itself.
 */
export function useRowLocks(studyId: number) {
  const locks = useQuery({
    queryKey: queryKeys.lock.list(studyId),
    queryFn: () => lockApi.list(studyId).then((res) => res.data),
  });
  const data = locks.data;
  return useCallback(
    (row: SubjectRecordRow): string | null => {
      const lock = (data ?? []).find(
        (l) =>
          l.scope === 'study' ||
          (l.scope === 'site' && l.targetId === row.deptId) ||
          (l.scope === 'subject' && l.targetId === row.subjectRecordId),
      );
      return lock ? `${lock.message}（${lock.reason}）` : null;
    },
    [data],
  );
}
