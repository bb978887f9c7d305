import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { StudyButton, StudyPermissionKey } from '@ecrf/core';
import { Select } from 'antd';
import { queryKeys } from '../../api/query-keys';
import { studyApi } from '../../api/study.api';
import { useAppStore } from '../../stores/app.store';
import { useSession } from '../../stores/session.store';
import { canInStudy } from './study-access';

/**
 * The study a page under /project/consult, /project/wxuser, /project/expert, /project/department, /project/medical
 * or /project/knowledge works in: these routes carry no study id, so the page offers a picker with the study last
 * opened first, and decides the study buttons by the caller's role in the study picked.
 */
export function usePickedStudy() {
  const current = useAppStore((s) => s.studyId);
  const permissions = useSession((s) => s.permissions);
  const [picked, setPicked] = useState<number | null>(current ? Number(current) : null);
  const studies = useQuery({
    queryKey: queryKeys.study.mine(),
    queryFn: () => studyApi.allMine().then((res) => res.data.list),
  });
  const studyId = picked ?? studies.data?.[0]?.id ?? null;
  const study = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    enabled: studyId !== null,
    queryFn: () => studyApi.get(studyId!).then((res) => res.data),
  });
  const can = (code: StudyButton | StudyPermissionKey) => canInStudy({ permissions, myRole: study.data?.myRole }, code);
  const options = (studies.data ?? []).map((s) => ({ value: s.id, label: s.studyName }));
  return {
    studyId,
    setStudyId: setPicked,
    options,
    loading: studies.isLoading,
    /** The study's detail (the caller's role in it) has arrived: `can` answers for good. */
    roleKnown: study.isSuccess,
    can,
    permissions,
  };
}

export type PickedStudy = ReturnType<typeof usePickedStudy>;

interface StudyPickerProps {
  study: PickedStudy;
  /** The picker's accessible name. */
  label: string;
  placeholder: string;
  width?: number;
  /** What else the row holds (新增医院 on a page without a list). */
  children?: ReactNode;
}

/** The row above such a page's list: the picker of the study the page works in. */
export function StudyPicker({ study, label, placeholder, width = 280, children }: StudyPickerProps) {
  return (
    <div className="page-toolbar">
      <Select
        aria-label={label}
        placeholder={placeholder}
        style={{ width }}
        value={study.studyId ?? undefined}
        loading={study.loading}
        options={study.options}
        onChange={(value: number) => study.setStudyId(value)}
      />
      {children}
    </div>
  );
}
