import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { stageApi } from '../../../api/study.api';
import { sortStageTree } from './stage-tree';
import { queryKeys } from '../../../api/query-keys';

/** The study's stage tree, ordered for display. */
export function useStageTree(studyId: number) {
  const query = useQuery({
    queryKey: queryKeys.crfStage.tree(studyId),
    queryFn: () => stageApi.tree(studyId).then((res) => res.data),
  });
  const tree = useMemo(() => sortStageTree(query.data), [query.data]);
  return { ...query, tree };
}
