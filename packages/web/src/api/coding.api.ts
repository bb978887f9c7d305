import type {
  CodedItemRow,
  CodedItemSetting,
  CodingDictionary,
  CodingKind,
  CodingSearchHit,
  CodingState,
  CodingUpgradeImpact,
  Page,
} from '@ecrf/core';
import { http } from './request';

/** 医学编码's shapes are core's contract (coding/coding-contract.ts). */
export type {
  CodedItemRow,
  CodedItemSetting,
  CodingDictionary,
  CodingKind,
  CodingSearchHit,
  CodingState,
} from '@ecrf/core';

export const codingApi = {
  dictionaries: (studyId: number) =>
    http.get<CodingDictionary[]>('/api/business/coding/dictionaries', { params: { studyId } }),
  /** MedDRA: the ASCII files (llt.asc, pt.asc, …) chosen together; WHODrug: its CSV. */
  upload: (params: { studyId: number; kind: CodingKind; version: string; language: string }, files: File[]) => {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    return http.post<CodingDictionary>('/api/business/coding/dictionary', form, { params });
  },
  settings: (studyId: number) => http.get<CodedItemSetting[]>('/api/business/coding/settings', { params: { studyId } }),
  saveSettings: (studyId: number, items: CodedItemSetting[]) =>
    http.put<CodedItemSetting[]>('/api/business/coding/items', { studyId, items }),
  list: (params: { studyId: number; state?: CodingState; pageNum: number; pageSize: number }) =>
    http.get<Page<CodedItemRow>>('/api/business/coding/items', { params }),
  search: (studyId: number, kind: CodingKind, q: string) =>
    http.get<CodingSearchHit[]>('/api/business/coding/search', { params: { studyId, kind, q } }),
  code: (studyId: number, codedItemId: number, termCode: string) =>
    http.post<{ id: number; state: CodingState }>('/api/business/coding/code', { studyId, codedItemId, termCode }),
  approve: (studyId: number, codedItemIds: number[]) =>
    http.post<{ approved: number }>('/api/business/coding/approve', { studyId, codedItemIds }),
  upgradeImpact: (studyId: number, dictionaryId: number) =>
    http.get<CodingUpgradeImpact[]>('/api/business/coding/upgrade-impact', { params: { studyId, dictionaryId } }),
};
