import { Result, Spin } from 'antd';
import { MSG } from '@ecrf/core';
import { SAFETY_TEXT } from '../../../locales/safety.zh-CN';
import { useProjectStudy } from '../use-project-study';
import { SaeReports } from './components/sae-reports';

/** The study permission that reads and sends SAE reports (安全性报告); the server checks the same key. */
export const SAFETY_KEY = 'btn:business.safety';

/** 不良事件 (issue 37): the SAE reports with their 24-hour clocks, for holders of 安全性报告. */
export default function SafetyPage() {
  const { studyId, study, query, can } = useProjectStudy();
  let body;
  if (studyId === null || query.isError) body = <Result status="warning" title={MSG.forbidden} />;
  else if (!study) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else if (!can(SAFETY_KEY)) body = <Result status="warning" title={MSG.forbidden} />;
  else body = <SaeReports studyId={studyId} />;
  return (
    <div className="page-card">
      <h2 className="page-title">{SAFETY_TEXT.title}</h2>
      {body}
    </div>
  );
}
