import { useEffect, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { StudyButton, StudyPermissionKey } from '@ecrf/core';
import { studyApi } from '../../api/study.api';
import { useRouteId } from '../../hooks/use-route-id';
import { useAppStore } from '../../stores/app.store';
import { useSession } from '../../stores/session.store';
import { setDisplayTimeZone } from '../../utils/format-date';
import { canInStudy } from './study-access';
import { queryKeys } from '../../api/query-keys';

/** The study id of a /project/:id/… route, or null when it is not a positive whole number. */
export function useProjectStudyId(): number | null {
  return useRouteId('id');
}

/**
 * The study of a project page with what the caller may do in it. The detail carries the
 * caller's study role (myRole), which decides the buttons; its name also titles the top bar
 * when the study was opened from a link rather than from the study list.
 */
export function useProjectStudy() {
  const studyId = useProjectStudyId();
  const token = useSession((s) => s.token);
  const permissions = useSession((s) => s.permissions);
  const buttonPermissions = useSession((s) => s.buttonPermissions);
  const studyName = useAppStore((s) => s.studyName);
  const setStudyName = useAppStore((s) => s.setStudyName);

  const query = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    enabled: studyId !== null && Boolean(token),
    queryFn: () => studyApi.get(studyId!).then((res) => res.data),
  });
  const study = query.data;

  useEffect(() => {
    if (study && study.studyName !== studyName) setStudyName(study.studyName);
  }, [study, studyName, setStudyName]);
  useEffect(() => setDisplayTimeZone(study?.timeZone), [study?.timeZone]);

  const can = useMemo(() => {
    const granted = [...permissions, ...buttonPermissions];
    return (code: StudyButton | StudyPermissionKey) =>
      canInStudy({ permissions: granted, myRole: study?.myRole }, code);
  }, [permissions, buttonPermissions, study?.myRole]);

  return { studyId, study, query, can };
}
