import type { ExportV2Body, ExportV3Body, Page } from '@ecrf/core';
import type { Job } from './jobs.api';
import { http } from './request';

/** Data export (platform §7 Search): both calls start a background job; its file is downloaded from 任务. */
export type ExportJob = Pick<Job, 'jobId' | 'kind' | 'state' | 'progress' | 'message'>;

export interface ExportLogRow {
  id: number;
  jobId: string;
  userId: number;
  userName: string;
  api: 'v2' | 'v3';
  format: string;
  options: { scope?: { kind: string; patients?: number } } & Record<string, unknown>;
  state: string;
  patientCount: number | null;
  rowCount: number | null;
  fileName: string | null;
  fileSize: number | null;
  sha256: string | null;
  createTime: string;
  finishTime: string | null;
}

export const exportApi = {
  /** The patients of the current search. */
  searchResult: (body: Partial<ExportV2Body> & Pick<ExportV2Body, 'studyId' | 'format'>) =>
    http.post<ExportJob>('/api/v2/business/search/export', body),
  /** The whole study. */
  study: (body: Partial<ExportV3Body> & Pick<ExportV3Body, 'studyId' | 'format'>) =>
    http.post<ExportJob>('/api/v3/business/search/export', body),
  log: (studyId: number, params: { pageNum: number; pageSize: number }) =>
    http.get<Page<ExportLogRow>>('/api/business/search/export/log', { params: { studyId, ...params } }),
};
