import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { stageApi } from '../../../api/study.api';
import { sortStageTree } from './stage-tree';

/** The study's stage tree, ordered for display. */
export function useStageTree(studyId: number) {
  const query = useQuery({
    queryKey: ['crf-stage', 'tree', studyId],
    queryFn: () => stageApi.tree(studyId).then((res) => res.data),
  });
  const tree = useMemo(() => sortStageTree(query.data), [query.data]);
  return { ...query, tree };
}
