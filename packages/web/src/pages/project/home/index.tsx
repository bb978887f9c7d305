import { lazy, Suspense, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Empty, Result, Spin } from 'antd';
import { LockOutlined, TeamOutlined } from '@ant-design/icons';
import { MSG, todayString } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { ApiError } from '../../../api/request';
import { studyHomeApi, type StudyIndex } from '../../../api/subject.api';
import type { Study } from '../../../api/study.api';
import { PROJECT_HOME_TEXT } from '../../../locales/project-home.zh-CN';
import { useAppStore } from '../../../stores/app.store';
import { useSession } from '../../../stores/session.store';
import { LOGIN_PATH } from '../../../router-guard';
import { useProjectStudy } from '../use-project-study';
import { cumulativeSeries, enrolmentSeries } from './enrolment-series';
import '../project.css';
import { displayTimeZone } from '../../../utils/format-date';
import { queryKeys } from '../../../api/query-keys';

// echarts arrives with the chart, after the figures: a visitor without a session never loads it.
const EnrolmentChart = lazy(() => import('./components/enrolment-chart'));
const DashboardCharts = lazy(() => import('./components/dashboard-charts'));

const H = PROJECT_HOME_TEXT;

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <div className="home-figure" role="group" aria-label={label}>
      <div className="home-figure-label">{label}</div>
      <div className="home-figure-value">{value}</div>
    </div>
  );
}

function Figures({ index }: { index: StudyIndex }) {
  const series = useMemo(
    () => enrolmentSeries(index.enrolment, todayString(new Date(), displayTimeZone()).slice(0, 7)),
    [index.enrolment],
  );
  return (
    <>
      <div className="home-figures">
        <Figure label={H.subjectsTotal} value={index.subjects.total} />
        <Figure label={H.active} value={index.subjects.active} />
        <Figure label={H.completed} value={index.subjects.completed} />
        <Figure label={H.withdrawn} value={index.subjects.withdrawn} />
        <Figure label={H.thisMonth} value={index.subjects.thisMonth} />
        <Figure label={H.formsIncomplete} value={index.forms.incomplete} />
        <Figure label={H.formsSubmitted} value={index.forms.submitted} />
        <Figure label={H.doubtsOpen} value={index.doubts.open} />
        {index.missingMarks && <Figure label={H.missingMarks} value={index.missingMarks.total} />}
      </div>
      {index.missingMarks && index.missingMarks.total > 0 && (
        <div className="home-missing-codes" aria-label={H.missingByCode}>
          {H.missingByCode}：
          {index.missingMarks.byCode
            .filter((c) => c.count > 0)
            .map((c) => H.missingCode(c.label, c.code, c.count))
            .join('　')}
        </div>
      )}
      <div className="home-chart-card">
        <h3 className="home-chart-title">{H.enrolment}</h3>
        {index.subjects.total === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={H.noEnrolment} />
        ) : (
          <Suspense fallback={<Spin style={{ display: 'block', margin: '96px auto' }} />}>
            <EnrolmentChart series={series} />
          </Suspense>
        )}
      </div>
      {index.queriesWeekly && (
        <Suspense fallback={<Spin style={{ display: 'block', margin: '96px auto' }} />}>
          <DashboardCharts
            cumulative={cumulativeSeries(
              index.enrolmentCumulative ?? [],
              series.map((s) => s.month),
            )}
            target={index.enrolmentTarget ?? null}
            targetDate={index.enrolmentTargetDate ?? null}
            forms={index.formsByCrf ?? []}
            weeks={index.queriesWeekly}
            compliance={index.followCompliance ?? []}
          />
        </Suspense>
      )}
    </>
  );
}

function StudyHead({ study, studyId }: { study: Study; studyId: number }) {
  const navigate = useNavigate();
  return (
    <div className="home-head">
      <div>
        <h2 className="page-title">{study.studyName}</h2>
        <div className="home-meta">
          {study.studyCode && (
            <span>
              {H.code}：{study.studyCode}
            </span>
          )}
          {study.principal && (
            <span>
              {H.principal}：{study.principal}
            </span>
          )}
        </div>
        {study.description && <p className="home-description">{study.description}</p>}
      </div>
      <Button icon={<TeamOutlined aria-hidden />} onClick={() => void navigate(`/project/${studyId}/subject`)}>
        {H.goSubjects}
      </Button>
    </div>
  );
}

/** Without a session the figures are not the visitor's to see (the server answers 401). */
function PublicHome() {
  const navigate = useNavigate();
  const studyName = useAppStore((s) => s.studyName);
  return (
    <div className="page-card">
      <h2 className="page-title">{studyName || H.unknownStudy}</h2>
      <Result
        icon={<LockOutlined aria-hidden />}
        title={H.loginPrompt}
        subTitle={H.loginHint}
        extra={
          // A real link (open in a new tab works) that navigates inside the app.
          <Button
            type="primary"
            href={LOGIN_PATH}
            onClick={(event) => {
              event.preventDefault();
              void navigate(LOGIN_PATH);
            }}
          >
            {H.login}
          </Button>
        }
      />
    </div>
  );
}

function SignedInHome() {
  const { studyId, study, query } = useProjectStudy();
  const index = useQuery({
    queryKey: queryKeys.studyIndex.detail(studyId),
    enabled: studyId !== null,
    queryFn: () => studyHomeApi.index(studyId!).then((res) => res.data),
  });

  if (index.error instanceof ApiError && index.error.status === 401) return <PublicHome />;
  if (studyId === null || query.isError || index.isError) {
    const forbidden =
      studyId === null || query.isError || (index.error instanceof ApiError && index.error.status === 403);
    return (
      <div className="page-card">
        <Result status="warning" title={forbidden ? MSG.forbidden : H.unavailable} />
      </div>
    );
  }
  return (
    <div className="page-card">
      {study ? <StudyHead study={study} studyId={studyId} /> : <h2 className="page-title">{H.title}</h2>}
      {index.data ? <Figures index={index.data} /> : <Spin style={{ display: 'block', margin: '64px auto' }} />}
    </div>
  );
}

/** 项目首页 (STUDY-09): the study's figures and monthly enrolment; open without a session (noAuth). */
export default function ProjectHomePage() {
  const token = useSession((s) => s.token);
  return token ? <SignedInHome /> : <PublicHome />;
}
