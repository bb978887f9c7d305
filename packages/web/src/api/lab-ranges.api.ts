import type { LabRange, LabRangeImportResult, RangeOverride } from '@ecrf/core';
import { http } from './request';
import { queryKeys } from './query-keys';

/** 参考范围 (issue 37): a site's laboratory reference ranges; the shapes are core's (crf/lab-ranges-contract.ts). */
export type { LabRange, LabRangeImportResult } from '@ecrf/core';

export interface LabRangeFields {
  siteId: number;
  analyte: string;
  analyteName?: string | null;
  unit?: string | null;
  sex: 1 | 2 | null;
  ageMin: number | null;
  ageMax: number | null;
  lower: number | null;
  upper: number | null;
  effectiveFrom: string;
}

/** Under the study's settings, like the other 项目配置 tabs. */
export const labRangesKey = (studyId: number) => [...queryKeys.studyConfig.all(), 'lab-ranges', studyId] as const;

const BASE = '/api/business/lab-ranges';

export const labRangesApi = {
  list: (studyId: number) =>
    http.get<{ list: LabRange[]; sites: Array<{ deptId: number; deptName: string }> }>(BASE, { params: { studyId } }),
  create: (studyId: number, body: LabRangeFields) => http.post<LabRange>(BASE, { studyId, ...body }),
  update: (studyId: number, id: number, body: LabRangeFields & { reason: string }) =>
    http.put<LabRange>(`${BASE}/${id}`, { studyId, ...body }),
  remove: (studyId: number, id: number, reason: string) =>
    http.delete<null>(`${BASE}/${id}`, { params: { studyId, reason } }),
  /** dryRun: the preview (rows to load, rows refused and why); otherwise the import, all or nothing. */
  importFile: (studyId: number, file: File, dryRun: boolean) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return http.post<LabRangeImportResult>(`${BASE}/import`, form, { params: { studyId, dryRun } });
  },
  template: (studyId: number) => http.download(`${BASE}/template`, { params: { studyId } }),
  /** The site ranges a save of this form would judge by now, per item (the form page's before its first save). */
  applicable: (studyId: number, subjectRecordId: number, crfId: number, crfDataRecordId: number | null) =>
    http.get<Record<string, RangeOverride>>(`${BASE}/applicable`, {
      params: { studyId, subjectRecordId, crfId, ...(crfDataRecordId ? { crfDataRecordId } : {}) },
    }),
};
