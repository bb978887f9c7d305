import { MAX_PAGE_SIZE } from '@ecrf/core';
import type { MessageChannel, MessageKind, MessageReport, MessageRow, MessageRules, MessageState } from '@ecrf/core';
import { http, type RequestOptions } from './request';

/** 患者提醒 (issue 38): messages to patients, per core's messaging-contract.ts. */
export type { MessageReport, MessageRow, MessageRules } from '@ecrf/core';

export interface MessageOptState {
  optedOut: boolean;
  source: 'patient' | 'staff' | null;
  reason: string | null;
  createTime: string | null;
}

export interface MessageListFilter {
  subjectId?: number;
  state?: MessageState;
  kind?: MessageKind;
  pageNum?: number;
  pageSize?: number;
}

export const messageKeys = {
  all: ['messages'] as const,
  rules: (studyId: number) => ['messages', 'rules', studyId] as const,
  list: (studyId: number, filter: MessageListFilter = {}) => ['messages', 'list', studyId, filter] as const,
  report: (studyId: number) => ['messages', 'report', studyId] as const,
  outbox: (studyId: number) => ['messages', 'outbox', studyId] as const,
  opt: (studyId: number, subjectId: number) => ['messages', 'opt', studyId, subjectId] as const,
};

const BASE = '/api/business/messages';

export const messagesApi = {
  rules: (studyId: number) => http.get<MessageRules>(`${BASE}/rules`, { params: { studyId } }),
  /** 患者提醒; the server's refusal is shown in its words. */
  saveRules: (studyId: number, rules: MessageRules) => http.put<MessageRules>(`${BASE}/rules`, { ...rules, studyId }),
  list: (studyId: number, filter: MessageListFilter = {}) =>
    http.get<{ list: MessageRow[]; total: number }>(BASE, { params: { studyId, ...filter } }),
  report: (studyId: number) => http.get<MessageReport>(`${BASE}/report`, { params: { studyId } }),
  /** Only with the development provider: 404 otherwise, asked quietly. */
  outbox: (studyId: number, options?: RequestOptions) =>
    http.get<{ list: MessageRow[]; total: number } | MessageRow[]>(`${BASE}/outbox`, {
      ...options,
      // The newest, as many as one page may hold (the server caps it).
      params: { studyId, pageNum: 1, pageSize: MAX_PAGE_SIZE },
    }),
  optState: (studyId: number, subjectId: number) =>
    http.get<MessageOptState>(`${BASE}/opt-out`, { params: { studyId, subjectId } }),
  optOut: (studyId: number, subjectId: number, reason: string) =>
    http.post<MessageOptState | null>(`${BASE}/opt-out`, { studyId, subjectId, reason }),
  optIn: (studyId: number, subjectId: number, reason: string) =>
    http.post<MessageOptState | null>(`${BASE}/opt-in`, { studyId, subjectId, reason }),
};

/** The outbox answers either a page or a bare list; either way, its rows. */
export const outboxRows = (data: { list: MessageRow[] } | MessageRow[]): MessageRow[] =>
  Array.isArray(data) ? data : data.list;

export type { MessageChannel, MessageKind, MessageState };
