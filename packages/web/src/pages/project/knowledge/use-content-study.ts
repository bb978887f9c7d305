import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { studyApi } from '../../../api/study.api';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { canInStudy } from '../study-access';

/**
 * The study a page under /project/expert, /project/department, /project/medical or /project/knowledge works in:
 * these routes carry no study id, so the page offers a picker with the study last opened first.
 */
export function useContentStudy() {
  const current = useAppStore((s) => s.studyId);
  const permissions = useSession((s) => s.permissions);
  const [picked, setPicked] = useState<number | null>(current ? Number(current) : null);
  const studies = useQuery({ queryKey: ['content', 'studies'], queryFn: () => studyApi.allMine().then((r) => r.data) });
  const studyId = picked ?? studies.data?.list[0]?.id ?? null;
  const study = useQuery({
    queryKey: ['study', 'detail', studyId],
    enabled: studyId !== null,
    queryFn: () => studyApi.get(studyId!).then((res) => res.data),
  });
  const can = (code: string) => canInStudy({ permissions, myRole: study.data?.myRole }, code);
  const options = (studies.data?.list ?? []).map((s) => ({ value: s.id, label: s.studyName }));
  return { studyId, setStudyId: setPicked, options, loading: studies.isLoading, can, permissions };
}
