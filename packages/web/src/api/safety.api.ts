import type { Page, SaeExportFormat, SaeReport, SaeState, SafetyModule } from '@ecrf/core';
import { http } from './request';

/** The safety module's shapes are core's contract (safety/safety-contract.ts); the pages import them here. */
export type { SaeReport, SaeState, SafetyModule } from '@ecrf/core';

export interface SaeListFilter {
  state?: SaeState;
}

export const safetyApi = {
  module: (studyId: number) => http.get<SafetyModule>('/api/business/safety/module', { params: { studyId } }),
  setModule: (studyId: number, enabled: boolean) =>
    http.put<SafetyModule>('/api/business/safety/module', { studyId, enabled }),
  list: (params: SaeListFilter & { studyId: number; pageNum: number; pageSize: number }) =>
    http.get<Page<SaeReport>>('/api/business/safety/saes', { params }),
  // The top bar reads it quietly: a missed count is no reason for an error message.
  count: (studyId: number) =>
    http.get<{ pending: number }>('/api/business/safety/count', { params: { studyId }, silent: true }),
  submit: (studyId: number, saeReportId: number) =>
    http.post<SaeReport>('/api/business/safety/sae/submit', { studyId, saeReportId }),
  followup: (studyId: number, saeReportId: number) =>
    http.post<SaeReport>('/api/business/safety/sae/followup', { studyId, saeReportId }),
  /** 导出Word / 导出PDF / 导出CIOMS: the file itself; a refusal (no LibreOffice for PDF) shows as the wrapper's message. */
  exportReport: (studyId: number, reportId: number, format: SaeExportFormat) =>
    http.download('/api/business/safety/report/export', { params: { studyId, reportId, format } }),
};
