import type { Job, Page } from '@ecrf/core';
import { http } from './request';

/** A background job as its owner sees it (GET /api/system/jobs/…): core's contract (jobs-contract.ts). */
export type { Job, JobState } from '@ecrf/core';

export const JOBS_PATH = '/api/system/jobs';

export const jobsApi = {
  /** Read in the background (polling): a failed read keeps the last list rather than raising a message each time. */
  list: (params: { pageNum: number; pageSize: number }) =>
    http.get<Page<Job>>(`${JOBS_PATH}/list`, { params, silent: true }),
  cancel: (jobId: string) => http.post<Job>(`${JOBS_PATH}/${jobId}/cancel`),
  download: (jobId: string) => http.download(`${JOBS_PATH}/${jobId}/result`),
};

/** Whether a job may still change: the list is polled while one is. */
export const isActive = (job: Pick<Job, 'state'>) => job.state === 'queued' || job.state === 'running';
