import type { Page } from '@ecrf/core';
import { http } from './request';

/** The fields the shell needs; the study feature (a later issue) owns the full shape. */
export interface StudySummary {
  id: number;
  studyName?: string;
  name?: string;
  createTime?: string;
  [field: string]: unknown;
}

export const studyApi = {
  /** platform §9: the open study list asks for pageNum 1 without a page size. */
  openList: () => http.get<Page<StudySummary> | StudySummary[]>('/api/business/study/list', { params: { pageNum: 1 }, silent: true }),
  /** The QR call counts as failed when the answer is not 200 or carries no message (platform §2). */
  qrCode: (studyId: number | string) => http.get<unknown>(`/api/business/study/u_qr_code/${studyId}`, { silent: true }),
};
