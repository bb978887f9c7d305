import type {
  DoubleEntry,
  DoubleEntryPair,
  DoubleEntryPairState,
  DoubleEntryCompare,
  DoubleEntryDecision,
  DoubleEntrySaveBody,
  MyDoubleEntry,
} from '@ecrf/core';
import { http } from './request';

/** 双份录入's shapes are core's contract (double-entry-contract.ts); the CRF page and the CRF list import them here. */
export type {
  DoubleEntry,
  DoubleEntryCompare,
  DoubleEntryDecision,
  DoubleEntryPair,
  DoubleEntryPairState,
  MyDoubleEntry,
} from '@ecrf/core';

/** The form instance an entry is for. */
export interface DoubleEntryInstance {
  studyId: number;
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId?: number | null;
}

const params = (i: DoubleEntryInstance) => ({
  studyId: i.studyId,
  subjectRecordId: i.subjectRecordId,
  crfId: i.crfId,
  ...(i.crfDataRecordId ? { crfDataRecordId: i.crfDataRecordId } : {}),
});

/** The reconciler's list: the study's pairs, of one site and one status when given, one page. */
export interface DoubleEntryPairFilter {
  studyId: number;
  deptId?: number;
  status?: DoubleEntryPairState;
  pageNum: number;
  pageSize: number;
}

export const doubleEntryApi = {
  /** The study's forms set to double entry. */
  forms: (studyId: number) => http.get<number[]>('/api/business/study/crf/double_entry', { params: { studyId } }),
  configure: (studyId: number, crfId: number, doubleEntry: boolean) =>
    http.put<null>('/api/business/study/crf/double_entry', { studyId, crfId, doubleEntry }),
  /** The caller's own entry (never the other one) and how far the pair is. */
  mine: (i: DoubleEntryInstance) => http.get<MyDoubleEntry>('/api/business/double-entry/entry', { params: params(i) }),
  save: (body: DoubleEntrySaveBody) => http.put<DoubleEntry>('/api/business/double-entry/entry', body),
  done: (i: DoubleEntryInstance) => http.post<DoubleEntry>('/api/business/double-entry/done', params(i)),
  /** 双录入核对: every double-entry pair of the study the caller's sites hold. */
  pending: (filter: DoubleEntryPairFilter) =>
    http.get<{ list: DoubleEntryPair[]; total: number }>('/api/business/double-entry/pending', { params: filter }),
  compare: (i: DoubleEntryInstance) =>
    http.get<DoubleEntryCompare>('/api/business/double-entry/compare', { params: params(i) }),
  reconcile: (i: DoubleEntryInstance, decisions: Record<string, DoubleEntryDecision>) =>
    http.post<{ crfDataRecordId: number; version: number; state: number; differences: number }>(
      '/api/business/double-entry/reconcile',
      { ...params(i), decisions },
    ),
};
