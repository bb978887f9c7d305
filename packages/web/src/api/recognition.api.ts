import type {
  Job,
  RecognitionCallBody,
  RecognitionResult,
  RecognitionSource,
  RecognitionTemp,
  RecognitionTempBody,
} from '@ecrf/core';
import { http } from './request';

/** The calls of recognition (docs/recognition.md "The calls"): their shapes are core's contract (recognition/contract.ts). */
export type { RecognitionResult, RecognitionSource, RecognitionTemp } from '@ecrf/core';

/** The recognition's job, read while the call's 202 says it runs: its state and, once done, the answer. */
export type RecognitionJob = Pick<Job, 'jobId' | 'state'> & Partial<Pick<Job, 'result'>>;

export const RECOGNITION_PATH = '/imgrec/api/ignore/business/image/recognition/common';

export const recognitionApi = {
  /** A single-use tempId for an uploaded file, tied to the record it fills (SDV). */
  temp: (studyId: number, body: RecognitionTempBody) =>
    http.post<RecognitionTemp>('/api/v1/imgrec/temp', body, { params: { studyId }, silent: true }),
  /** RECOG-06/RECOG-07: the spec's call; its path carries "ignore", so no token is sent (platform §7). */
  recognise: (body: RecognitionCallBody) => http.post<RecognitionResult>(RECOGNITION_PATH, body, { silent: true }),
  /** The recognition's job, when the call answered 202 before it finished. */
  job: (jobId: string) => http.get<RecognitionJob>(`/api/system/jobs/${jobId}`, { silent: true }),
  /** The source images recognised into a patient's form, for a monitor to check the values against (SDV). */
  sources: (studyId: number, subjectRecordId: number, crfId: number) =>
    http.get<RecognitionSource[]>('/api/v1/imgrec/sources', {
      params: { studyId, subjectRecordId, crfId },
      silent: true,
    }),
  /** Links a recognition made on an unsaved record to the record its first save created. */
  linkRecord: (studyId: number, recognitionId: number, crfDataRecordId: number) =>
    http.put<unknown>(
      `/api/v1/imgrec/${recognitionId}/record`,
      { crfDataRecordId },
      { params: { studyId }, silent: true },
    ),
};
