import { z } from 'zod';
import { pagingQueryFields } from './request-fields.js';

/**
 * The HTTP contract of background jobs (任务, GET /api/system/jobs/…): one user's own jobs, whatever study they
 * belong to; exports, imports and recognitions run as jobs and answer one when they outlive their request.
 */

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

// ---- Requests ----

export const jobListQuerySchema = z.object({ ...pagingQueryFields });
export const jobIdParamSchema = z.object({ jobId: z.string().uuid() });

// ---- Responses ----

/** A background job as its owner sees it: everything but its payload, which stays on the server. */
export const jobSchema = z.strictObject({
  jobId: z.string(),
  kind: z.string(),
  studyId: z.number().nullable(),
  state: z.enum(JOB_STATES),
  /** 0–100. */
  progress: z.number(),
  /** What the job is doing (正在导出 3/10); never a clinical value. */
  message: z.string().nullable(),
  /** Why it failed; never a clinical value. */
  error: z.string().nullable(),
  /** Asked to stop while running; the state turns cancelled once the handler has stopped. */
  cancelRequested: z.boolean(),
  /** What the handler answered (ids, counts; a recognition its answer), or null. */
  result: z.unknown(),
  resultFile: z.strictObject({ fileName: z.string(), contentType: z.string(), size: z.number() }).nullable(),
  attempts: z.number(),
  createTime: z.string(),
  startTime: z.string().nullable(),
  finishTime: z.string().nullable(),
});
export type Job = z.infer<typeof jobSchema>;

/** What a call that started a job answers: the job, as far as the caller follows it (its file comes from 任务). */
export const startedJobSchema = jobSchema.pick({ jobId: true, kind: true, state: true, progress: true, message: true });
export type StartedJob = z.infer<typeof startedJobSchema>;
