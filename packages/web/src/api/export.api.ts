import type { ExportLogRow, ExportV2Body, ExportV3Body, Page, StartedJob } from '@ecrf/core';
import { http } from './request';

/** Data export (platform §7 Search): both calls start a background job; its file is downloaded from 任务. */
export type ExportJob = StartedJob;

/** An export as the log lists it: core's contract (export.ts). */
export type { ExportLogRow } from '@ecrf/core';

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
