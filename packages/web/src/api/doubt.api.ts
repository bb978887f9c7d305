import type { Doubt, DoubtDetail, DoubtFilter, OpenDoubtBody, Page } from '@ecrf/core';
import { http } from './request';

/** QRY-04: optionType 0 open (待回复), 2 replied (已回复), 1 closed (已关闭). */
export const DOUBT_STATE = { open: 0, closed: 1, replied: 2 } as const;
/** QRY-05: doubtType 0 system, 1 user. */
export const DOUBT_TYPE = { system: 0, user: 1 } as const;

/** The queries' request and answer shapes are core's contract (doubt-contract.ts); the pages import them here. */
export type { Doubt, DoubtDetail, DoubtFilter, DoubtMessage, DoubtMessageKind, OpenDoubtBody } from '@ecrf/core';

/**
 * QRY-21. The dialog shows the outcome of each call itself (开启质疑成功 …) and its validation
 * messages beside the box, so refusals are quiet here and the dialog explains them.
 */
export const doubtApi = {
  open: (body: OpenDoubtBody) => http.post<{ doubtId: number }>('/api/business/doubt/open', body, { silent: true }),
  /** Re-opens a replied query with a new message. */
  reopen: (doubtId: number, doubtDescription: string) =>
    http.post<{ doubtId: number }>('/api/business/doubt/open', { doubtId, doubtDescription }, { silent: true }),
  get: (doubtId: number) => http.get<DoubtDetail>(`/api/business/doubt/${doubtId}`),
  reply: (doubtId: number, content: string) =>
    http.put<null>('/api/business/doubt/reply', { doubtId, content }, { silent: true }),
  close: (doubtId: number, content: string) =>
    http.put<null>('/api/business/doubt/close', { doubtId, content }, { silent: true }),
  list: (params: DoubtFilter & { studyId: number; pageNum: number; pageSize: number }) =>
    http.get<Page<Doubt>>('/api/business/doubts', { params }),
  /** Quiet: a missing badge is no reason to interrupt anyone. */
  count: (studyId: number) =>
    http.get<{ waiting: number }>('/api/business/doubts/count', { params: { studyId }, silent: true }),
};
