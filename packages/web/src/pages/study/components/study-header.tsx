import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Result, Spin } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { useNavigate, useParams } from 'react-router';
import { studyApi, type Study } from '../../../api/study.api';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';
import { queryKeys } from '../../../api/query-keys';

/** The study of a /study/:id/… page. */
export function useStudyOfRoute() {
  const { id } = useParams();
  const studyId = Number(id);
  const valid = Number.isInteger(studyId) && studyId > 0;
  const query = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    enabled: valid,
    queryFn: () => studyApi.get(studyId).then((res) => res.data),
  });
  return { studyId: valid ? studyId : null, query };
}

/** Frame of the per-study pages (项目角色, 项目人员): a way back to 项目维护 and the study's name in the title. */
export function StudyRoutePage({ page, children }: { page: string; children: (study: Study) => ReactNode }) {
  const navigate = useNavigate();
  const { studyId, query } = useStudyOfRoute();

  let body: ReactNode;
  if (studyId === null || query.isError) body = <Result status="warning" title={MSG.forbidden} />;
  else if (query.isLoading || !query.data) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else body = children(query.data);

  return (
    <div className="page-card">
      <Button
        type="link"
        className="study-back-link"
        style={{ padding: 0 }}
        icon={<ArrowLeftOutlined aria-hidden />}
        onClick={() => void navigate('/study/list')}
      >
        {STUDY_TEXT.backToManage}
      </Button>
      <h2 className="page-title">{query.data ? STUDY_TEXT.titleOf(query.data.studyName, page) : page}</h2>
      {body}
    </div>
  );
}
