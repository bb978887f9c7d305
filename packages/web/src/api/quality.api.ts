import type {
  Page,
  QualityDashboard,
  QualityFinding,
  QualityQueriesBody,
  QualityQueriesResult,
  QualityRun,
  QualityRunBody,
} from '@ecrf/core';
import { http } from './request';

/** 数据核查's request and answer shapes are core's contract (quality-contract.ts); the page imports them here. */
export type { QualityDashboard, QualityFinding, QualityQueriesResult, QualityRun, QualityScope } from '@ecrf/core';

export const qualityApi = {
  start: (body: QualityRunBody) => http.post<{ runId: number; jobId: string }>('/api/business/quality/run', body),
  runs: (params: { studyId: number; pageNum: number; pageSize: number }) =>
    http.get<Page<Omit<QualityRun, 'rules'>>>('/api/business/quality/runs', { params }),
  run: (studyId: number, runId: number) =>
    http.get<QualityRun>('/api/business/quality/run', { params: { studyId, runId } }),
  findings: (params: { studyId: number; runId: number; ruleKey?: string; pageNum: number; pageSize: number }) =>
    http.get<Page<QualityFinding>>('/api/business/quality/findings', { params }),
  raiseQueries: (body: QualityQueriesBody) => http.post<QualityQueriesResult>('/api/business/quality/queries', body),
  dashboard: (studyId: number) =>
    http.get<QualityDashboard>('/api/business/quality/dashboard', { params: { studyId } }),
};
