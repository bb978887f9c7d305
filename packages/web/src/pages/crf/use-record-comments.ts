import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { commentApi, type ItemComment } from '../../api/comment.api';
import { queryKeys } from '../../api/query-keys';

const NONE: ItemComment[] = [];

/**
 * A saved record's field comments (批注), read once for the whole record: the item list counts them per item and an
 * item's drawer lists its own from the same cache entry.
 */
export function useRecordComments(studyId: number, crfDataRecordId: number | null) {
  const query = useQuery({
    queryKey: queryKeys.crfRecord.comments(crfDataRecordId),
    queryFn: () => commentApi.list(studyId, crfDataRecordId!).then((res) => res.data),
    enabled: crfDataRecordId !== null && studyId > 0,
  });
  const comments = query.data ?? NONE;
  const countByItem = useMemo(() => {
    const counts: Record<string, number> = {};
    for (const c of comments) counts[c.itemName] = (counts[c.itemName] ?? 0) + 1;
    return counts;
  }, [comments]);
  return { comments, countByItem, loading: query.isFetching };
}
