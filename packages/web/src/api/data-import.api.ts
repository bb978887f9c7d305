import type { ImportAnswer, ImportMode, ImportPreview } from '@ecrf/core';
import { http } from './request';
import type { Job } from './jobs.api';

/** An import's answer: its result, or the job it runs as (core's contract, data-import.ts). */
export type { ImportAnswer } from '@ecrf/core';

const IMPORT_PATH = '/api/business/import/multi_crf_sheet/multi_thread';

const formOf = (file: File) => {
  const form = new FormData();
  form.append('file', file);
  return form;
};

/** Data import (SRCH-06): the template, the preview (dry run, writes nothing) and the import itself. */
export const dataImportApi = {
  template: (studyId: number) => http.download('/api/business/import/template', { params: { studyId } }),
  preview: (studyId: number, file: File, submitType: 0 | 1) =>
    http.post<ImportPreview>(IMPORT_PATH, formOf(file), { params: { studyId, submitType, dryRun: true } }),
  run: (studyId: number, file: File, submitType: 0 | 1, mode: ImportMode) =>
    http.post<ImportAnswer>(IMPORT_PATH, formOf(file), { params: { studyId, submitType, mode } }),
  job: (jobId: string) => http.get<Job>(`/api/system/jobs/${jobId}`, { silent: true }),
};
