import { http } from './request';

/** The calls of recognition (docs/recognition.md "The calls"). */
export interface RecognitionTemp {
  tempId: string;
  expiresIn: number;
}

export interface RecognitionResult {
  fileKey: string;
  recognitionId: number;
  [key: string]: unknown;
}

export interface RecognitionJob {
  jobId: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  result?: unknown;
}

/** A recognition's source image linked to a patient's form (SDV). */
export interface RecognitionSource {
  recognitionId: number;
  fileKey: string;
  fileName: string;
  /** An image in the object store (external mode): read at this address, not through the download call. */
  url?: string;
  crfId: number | null;
  subjectRecordId: number | null;
  crfDataRecordId: number | null;
  type: number;
  index: number;
  createdBy: number;
  createdByName: string;
  createdAt: string;
}

export const RECOGNITION_PATH = '/imgrec/api/ignore/business/image/recognition/common';

export const recognitionApi = {
  /** A single-use tempId for an uploaded file, tied to the record it fills (SDV). */
  temp: (
    studyId: number,
    body: { fileKey: string; crfId: number; subjectRecordId: number; crfDataRecordId?: number | undefined },
  ) => http.post<RecognitionTemp>('/api/v1/imgrec/temp', body, { params: { studyId }, silent: true }),
  /** RECOG-06/RECOG-07: the spec's call; its path carries "ignore", so no token is sent (platform §7). */
  recognise: (body: { url: string; type: number; index: number; tempId: string }) =>
    http.post<RecognitionResult>(RECOGNITION_PATH, body, { silent: true }),
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
