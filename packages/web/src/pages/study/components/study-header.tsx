import type { ReactNode } from 'react';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { Button, Result, Spin } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { studyApi, type Study } from '../../../api/study.api';
import { useRouteId } from '../../../hooks/use-route-id';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';
import { queryKeys } from '../../../api/query-keys';

/** The study of a /study/:id/… page. */
export function useStudyOfRoute() {
  const studyId = useRouteId('id');
  const query = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    enabled: studyId !== null,
    queryFn: () => studyApi.get(studyId!).then((res) => res.data),
  });
  return { studyId, query };
}

/** Frame of the per-study pages (项目角色, 项目人员): a way back to 项目维护 and the study's name in the title. */
export function StudyRoutePage({ page, children }: { page: string; children: (study: Study) => ReactNode }) {
  const navigate = useNavigate();
  const { studyId, query } = useStudyOfRoute();

  return (
    <BackLinkPage
      query={query}
      invalid={studyId === null}
      backLabel={STUDY_TEXT.backToManage}
      onBack={() => void navigate('/study/list')}
      title={query.data ? STUDY_TEXT.titleOf(query.data.studyName, page) : page}
    >
      {children}
    </BackLinkPage>
  );
}

/**
 * A setup page about one thing its route names (a study, a stage): a link back to where it was picked, its title,
 * and its body once the thing has loaded; 权限不足 when the route names nothing readable.
 */
export function BackLinkPage<T>({
  query,
  invalid = false,
  backLabel,
  onBack,
  title,
  children,
}: {
  query: UseQueryResult<T>;
  /** The route names no thing at all. */
  invalid?: boolean;
  backLabel: string;
  onBack: () => void;
  title: string;
  children: (data: T) => ReactNode;
}) {
  let body: ReactNode;
  if (invalid || query.isError) body = <Result status="warning" title={MSG.forbidden} />;
  else if (!query.data) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else body = children(query.data);

  return (
    <div className="page-card">
      <Button
        type="link"
        className="study-back-link"
        style={{ padding: 0 }}
        icon={<ArrowLeftOutlined aria-hidden />}
        onClick={onBack}
      >
        {backLabel}
      </Button>
      <h2 className="page-title">{title}</h2>
      {body}
    </div>
  );
}
