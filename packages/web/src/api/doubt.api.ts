import type { Page } from '@ecrf/core';
import type { FileLink } from './crf.api';
import { http } from './request';

/** QRY-04: optionType 0 open (待回复), 2 replied (已回复), 1 closed (已关闭). */
export const DOUBT_STATE = { open: 0, closed: 1, replied: 2 } as const;
/** QRY-05: doubtType 0 system, 1 user. */
export const DOUBT_TYPE = { system: 0, user: 1 } as const;

/** A data query (QRY-03); the list adds the patient and form. */
export interface Doubt {
  doubtId: number;
  studyId: number;
  subjectRecordId: number;
  crfDataRecordId: number;
  crfId: number;
  itemName: string;
  /** The value when the query was raised. */
  itemValue: unknown;
  groupName: string | null;
  groupIndex: number | null;
  doubtDescription: string;
  optionType: number;
  doubtType: number;
  userName: string;
  createDate: string;
  updateDate: string;
  closeDate: string | null;
  identificationCode?: string;
  subjectName?: string;
  crfTitle?: string;
  /** The item's title (a cell's column title) in the record's CRF version. */
  itemTitle?: string;
  /** The list group or table of a cell; null for an item of the form. */
  groupTitle?: string | null;
  /** The value when the query was raised, as a person reads it: labels, unit, file names. */
  itemValueText?: string;
  itemUnit?: string;
  /** The visit: the stage(s) the form belongs to. */
  stageName?: string;
  crfVersion?: number | null;
  itemFiles?: FileLink[];
}

export type DoubtMessageKind = 'open' | 'reply' | 'reopen' | 'close' | 'auto_close';

export interface DoubtMessage {
  id: number;
  kind: DoubtMessageKind;
  content: string;
  itemValue: unknown;
  itemValueText?: string;
  userName: string;
  createDate: string;
}

/** GET /api/business/doubt/{id}: the query with its thread and the item's value now. */
export interface DoubtDetail extends Doubt {
  currentValue: unknown;
  currentValueText?: string;
  messages: DoubtMessage[];
}

/** The filters of GET /api/business/doubts (QRY-22). */
export interface DoubtFilter {
  subjectRecordId?: number;
  crfId?: number;
  crfDataRecordId?: number;
  itemName?: string;
  optionType?: number;
  doubtType?: number;
  userName?: string;
  identificationCode?: string;
  beginDate?: string;
  endDate?: string;
}

export interface OpenDoubtBody {
  crfDataRecordId: number | null;
  itemName: string;
  groupName?: string | null;
  groupIndex?: number | null;
  doubtDescription: string;
}

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
