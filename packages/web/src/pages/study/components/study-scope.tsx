import { useCallback, useEffect, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Empty, Select, Spin } from 'antd';
import { useSearchParams } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { studyApi, type Study } from '../../../api/study.api';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';
import { positiveIdOf } from '../../../utils/positive-id';

/** The studies the user may set up (all of them for 项目维护 holders), for pickers. */
export function useMyStudies() {
  return useQuery({
    queryKey: queryKeys.study.mine(),
    queryFn: () => studyApi.allMine().then((res) => res.data.list),
  });
}

/** The study a setup page works on: the `studyId` query parameter, so links and the side menu carry it. */
export function useStudyParam(): [number | null, (studyId: number) => void] {
  const [params, setParams] = useSearchParams();
  const studyId = positiveIdOf(params.get('studyId'));
  const setStudyId = useCallback(
    (next: number) =>
      setParams(
        (current) => {
          const copy = new URLSearchParams(current);
          copy.set('studyId', String(next));
          return copy;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [studyId, setStudyId];
}

interface StudyScopeProps {
  title: string;
  /** Extra controls shown at the right of the header, next to the picker. */
  extra?: ReactNode;
  children: (study: Study) => ReactNode;
}

/**
 * Header of a study setup page: its title and a picker of the user's studies. The `studyId` query
 * parameter preselects; without one the first study is taken, so the page is never empty
 * when there is something to set up.
 */
export function StudyScope({ title, extra, children }: StudyScopeProps) {
  const [studyId, setStudyId] = useStudyParam();
  const studies = useMyStudies();
  const list = studies.data ?? [];
  const study = list.find((candidate) => candidate.id === studyId) ?? null;
  const first = list[0]?.id;

  useEffect(() => {
    if (studyId === null && first !== undefined) setStudyId(first);
  }, [studyId, first, setStudyId]);

  let body: ReactNode;
  if (studies.isLoading) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else if (list.length === 0) body = <Empty description={STUDY_TEXT.noStudies} />;
  else if (!study) body = <Empty description={STUDY_TEXT.pickFirst} />;
  else body = children(study);

  return (
    <div className="page-card">
      <div className="study-page-head">
        <h2 className="page-title">{title}</h2>
        <div className="study-page-head-extra">
          {extra}
          <label className="study-picker">
            <span>{STUDY_TEXT.picker}</span>
            <Select
              aria-label={STUDY_TEXT.picker}
              showSearch={{ optionFilterProp: 'label' }}
              value={study?.id}
              placeholder={STUDY_TEXT.pickerPlaceholder}
              loading={studies.isLoading}
              style={{ width: 280 }}
              options={list.map((item) => ({ value: item.id, label: item.studyName }))}
              onChange={(value: number) => setStudyId(value)}
            />
          </label>
        </div>
      </div>
      {body}
    </div>
  );
}
