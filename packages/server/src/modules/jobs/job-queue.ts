import type { Readable } from 'node:stream';
import { JOB_STATES, type JobState } from '@ecrf/core';
import type { PageRequest } from '../../shared/paging.js';

// The states are the browser's too (core's jobs contract).
export { JOB_STATES, type JobState };

/** A job as its owner sees it: the same answer whichever queue implementation runs it. */
export interface JobView {
  jobId: string;
  kind: string;
  ownerId: number;
  studyId: number | null;
  state: JobState;
  /** 0–100. */
  progress: number;
  /** What the job is doing, for the owner (正在导出 3/10); never a clinical value. */
  message: string | null;
  /** Why it failed, for the owner; never a clinical value (see JobFailure). */
  error: string | null;
  /** Asked to stop while running; the state turns cancelled once the handler has stopped. */
  cancelRequested: boolean;
  /** What the handler answered (ids, counts), or null. */
  result: unknown;
  resultFile: { fileName: string; contentType: string; size: number } | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface JobInfo<P = unknown> {
  jobId: string;
  kind: string;
  payload: P;
  ownerId: number;
  studyId: number | null;
  /** 1 on the first run; more when a restart runs the job again. */
  attempt: number;
}

export interface JobTools {
  /** Records progress (clamped to 0–100) and tells the progress listeners. The message must hold no clinical value. */
  progress(percent: number, message?: string): Promise<void>;
  /** Aborted when the owner cancels or the process shuts down: stop at the next safe point. */
  signal: AbortSignal;
  /** Keeps the job's result file (one per job; a second call replaces it). The owner downloads it once the job is done. */
  saveResultFile(file: { fileName: string; contentType: string; data: Buffer | Readable }): Promise<void>;
}

/**
 * A job handler. **Handlers must be re-runnable**: a job that was running when its process died (or shut
 * down) is run again from the start, so a handler writes its effects idempotently (or in one transaction at
 * its end) and replaces, never appends to, its result file. Throw JobFailure with a message for the owner;
 * any other error is recorded as a generic failure, since driver and library messages can quote values.
 */
export type JobHandler<P = unknown, R = unknown> = (job: JobInfo<P>, tools: JobTools) => Promise<R>;

export type JobListener = (job: JobView) => void;

/** A job in short: what a request that started it answers, and what the progress push tells its owner. */
export const jobSummary = (job: JobView) => ({
  jobId: job.jobId,
  kind: job.kind,
  state: job.state,
  progress: job.progress,
  message: job.message,
});

export type JobLog = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) => void;

/**
 * Background jobs: export, import, recognition, reminders. One interface, two implementations (the
 * in-process queue on the embedded database, BullMQ when REDIS_URL is set); the job record lives in the
 * `jobs` table in both, so what the owner reads does not depend on the implementation.
 */
export interface JobQueue {
  readonly implementation: 'local' | 'bullmq';
  /** Registers the handler of one kind of job (once per kind, at start-up). */
  handle<P = unknown, R = unknown>(kind: string, handler: JobHandler<P, R>): void;
  enqueue(kind: string, payload: unknown, owner: { ownerId: number; studyId?: number | null }): Promise<JobView>;
  get(jobId: string): Promise<JobView | null>;
  /** An owner's jobs, newest first. */
  list(ownerId: number, page: PageRequest): Promise<{ list: JobView[]; total: number }>;
  /**
   * A queued job is cancelled at once and never starts; a running one is asked to stop (its handler sees
   * `signal.aborted`) and turns cancelled when it has stopped. Answers the job as it now stands, or null
   * when there is no such job. A finished job is left as it is.
   */
  cancel(jobId: string): Promise<JobView | null>;
  /** The result file of a finished job, or null. */
  openResult(jobId: string): Promise<{ fileName: string; contentType: string; size: number; stream: Readable } | null>;
  /** Called on every change of a job (queued, running, progress, done, failed, cancelled) seen by this process. */
  onProgress(listener: JobListener): () => void;
  /** Where the queue logs who/what/when (job id, kind, owner, state; never payloads or messages). */
  useLog(log: JobLog): void;
  /** Stops taking jobs; running ones are stopped and queued again (they run again at the next start). */
  close(): Promise<void>;
}

/** An error whose message is written for the job's owner and is kept on the failed job. */
export class JobFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailure';
  }
}

/** What a failed job shows when its error was not written for the owner. */
export const GENERIC_JOB_ERROR = '任务执行失败，请联系管理员';
