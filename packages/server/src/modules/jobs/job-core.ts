import crypto from 'node:crypto';
import os from 'node:os';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { jobs } from '../../db/schema/index.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { AppError } from '../../shared/app-error.js';
import type { JobFiles } from './job-files.js';
import {
  GENERIC_JOB_ERROR,
  JobFailure,
  type JobHandler,
  type JobListener,
  type JobQueue,
  type JobState,
  type JobView,
} from './job-queue.js';

type JobRow = typeof jobs.$inferSelect;

export interface JobCoreDeps {
  db: Db;
  files: JobFiles;
  clock: () => Date;
  /** who/what/when only: job id, kind, state, attempt; never payloads or messages of handlers. */
  log: (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) => void;
  /** How often a running job checks for a cancel from another server and renews its claim (ms). */
  heartbeatMs?: number;
  /** How long a claim holds without a heartbeat before another worker takes the job again (ms). */
  leaseMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 1_000;
export const DEFAULT_LEASE_MS = 30_000;
const MESSAGE_MAX = 200;
const ERROR_MAX = 500;

/** One name per process, for the claim columns and the logs. */
export function workerName() {
  return `${os.hostname().slice(0, 40)}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
}

export function toView(row: JobRow): JobView {
  return {
    jobId: row.jobId,
    kind: row.kind,
    ownerId: row.ownerId,
    studyId: row.studyId,
    state: row.state as JobState,
    progress: row.progress,
    message: row.message,
    error: row.error,
    cancelRequested: row.cancelRequested,
    result: row.result ?? null,
    resultFile:
      row.resultFileName && row.state === 'done'
        ? {
            fileName: row.resultFileName,
            contentType: row.resultContentType ?? 'application/octet-stream',
            size: row.resultSize ?? 0,
          }
        : null,
    attempts: row.attempts,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/** The message a failed job keeps: the owner's words when the handler wrote them, a generic one otherwise. */
export function ownerMessage(err: unknown): string {
  if (err instanceof JobFailure || err instanceof AppError) return err.message.slice(0, ERROR_MAX);
  return GENERIC_JOB_ERROR;
}

export type Outcome = 'done' | 'failed' | 'cancelled' | 'requeued' | 'skipped';

/** What both implementations share: the job record, the handlers, the listeners and the run of one job. */
export function createJobCore(deps: JobCoreDeps) {
  const { db, files, clock } = deps;
  const heartbeatMs = deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const handlers = new Map<string, JobHandler<any, any>>();
  const listeners = new Set<JobListener>();
  /** Jobs running in this process, to abort a cancel at once rather than at the next heartbeat. */
  const active = new Map<string, AbortController>();

  const emit = (row: JobRow | undefined) => {
    if (!row) return;
    const view = toView(row);
    for (const listener of listeners) {
      try {
        listener(view);
      } catch (err) {
        deps.log('warn', { jobId: row.jobId, err: (err as Error).name }, 'job listener failed');
      }
    }
  };

  async function get(jobId: string) {
    const [row] = await db.select().from(jobs).where(eq(jobs.jobId, jobId));
    return row;
  }

  return {
    handlers,
    listeners,
    active,
    emit,
    get,
    leaseMs,

    handle(kind: string, handler: JobHandler<any, any>) {
      // An app built again on the same context (tests, a rebuilt server) registers its routes' handlers again:
      // the newest registration runs the kind.
      handlers.set(kind, handler);
    },

    async insert(kind: string, payload: unknown, owner: { ownerId: number; studyId?: number | null }) {
      if (!handlers.has(kind)) throw new Error(`no handler for job kind ${kind}`);
      const [row] = await db
        .insert(jobs)
        .values({
          jobId: crypto.randomUUID(),
          kind,
          ownerId: owner.ownerId,
          studyId: owner.studyId ?? null,
          payload: payload ?? {},
          state: 'queued',
          createdAt: clock(),
        })
        .returning();
      deps.log('info', { jobId: row!.jobId, kind, ownerId: owner.ownerId }, 'job queued');
      emit(row);
      return row!;
    },

    async list(ownerId: number, page: PageRequest) {
      const mine = eq(jobs.ownerId, ownerId);
      const { list: rows, total } = await pagedQuery(
        db.select({ total: count() }).from(jobs).where(mine),
        db.select().from(jobs).where(mine).orderBy(desc(jobs.createdAt), desc(jobs.jobId)).$dynamic(),
        page,
      );
      return { list: rows.map(toView), total };
    },

    /** Cancels a queued job outright; flags a running one. Answers the row as it now stands. */
    async cancel(jobId: string) {
      const now = clock();
      const [cancelled] = await db
        .update(jobs)
        .set({ state: 'cancelled', cancelRequested: true, finishedAt: now, lockedBy: null, lockedUntil: null })
        .where(and(eq(jobs.jobId, jobId), eq(jobs.state, 'queued')))
        .returning();
      if (cancelled) {
        deps.log('info', { jobId, kind: cancelled.kind }, 'job cancelled before it started');
        emit(cancelled);
        return { row: cancelled, wasQueued: true };
      }
      const [flagged] = await db
        .update(jobs)
        .set({ cancelRequested: true })
        .where(and(eq(jobs.jobId, jobId), eq(jobs.state, 'running')))
        .returning();
      if (flagged) {
        active.get(jobId)?.abort('cancelled');
        emit(flagged);
        return { row: flagged, wasQueued: false };
      }
      return { row: await get(jobId), wasQueued: false };
    },

    async openResult(jobId: string) {
      const row = await get(jobId);
      const view = row && toView(row);
      if (!view?.resultFile) return null;
      const stream = await files.open(jobId);
      return stream ? { ...view.resultFile, stream } : null;
    },

    /** Marks a queued job running for this worker; undefined when it is no longer queued (cancelled meanwhile). */
    async claim(jobId: string, worker: string) {
      const now = clock();
      const [row] = await db
        .update(jobs)
        .set({
          state: 'running',
          lockedBy: worker,
          lockedUntil: new Date(now.getTime() + leaseMs),
          attempts: sql`${jobs.attempts} + 1`,
          startedAt: now,
          progress: 0,
          message: null,
        })
        .where(and(eq(jobs.jobId, jobId), inArray(jobs.state, ['queued', 'running']), eq(jobs.cancelRequested, false)))
        .returning();
      return row;
    },

    /**
     * Runs one claimed job to its end. `shutdown` aborts when the process stops: the job goes back to the
     * queue (it runs again at the next start) instead of failing.
     */
    async execute(row: JobRow, worker: string, shutdown: AbortSignal): Promise<Outcome> {
      const handler = handlers.get(row.kind);
      const controller = new AbortController();
      active.set(row.jobId, controller);
      const onShutdown = () => controller.abort('shutdown');
      if (shutdown.aborted) onShutdown();
      shutdown.addEventListener('abort', onShutdown);
      const mine = and(eq(jobs.jobId, row.jobId), eq(jobs.lockedBy, worker), eq(jobs.state, 'running'));
      let savedFile: { fileName: string; contentType: string; size: number } | null = null;
      let lastProgress = { percent: -1, message: '' as string | null };

      // The heartbeat renews the claim and notices a cancel written by another app server.
      let beating = Promise.resolve();
      const heartbeat = setInterval(() => {
        beating = (async () => {
          const [current] = await db
            .update(jobs)
            .set({ lockedUntil: new Date(clock().getTime() + leaseMs) })
            .where(mine)
            .returning({ cancelRequested: jobs.cancelRequested });
          if (!current) controller.abort('lost');
          else if (current.cancelRequested) controller.abort('cancelled');
        })().catch(() => undefined);
      }, heartbeatMs);
      heartbeat.unref();

      const finish = async (state: JobState | 'queued', set: Partial<typeof jobs.$inferInsert>) => {
        const [updated] = await db
          .update(jobs)
          .set({ state, lockedBy: null, lockedUntil: null, ...set })
          .where(mine)
          .returning();
        emit(updated);
        return updated;
      };

      const reason = () => (controller.signal.aborted ? String(controller.signal.reason) : null);
      deps.log('info', { jobId: row.jobId, kind: row.kind, attempt: row.attempts }, 'job started');
      emit(row);
      try {
        if (!handler) throw new JobFailure('未知的任务类型');
        const result = await handler(
          {
            jobId: row.jobId,
            kind: row.kind,
            payload: row.payload,
            ownerId: row.ownerId,
            studyId: row.studyId,
            attempt: row.attempts,
          },
          {
            signal: controller.signal,
            progress: async (percent, message) => {
              const p = Math.max(0, Math.min(100, Math.round(Number.isFinite(percent) ? percent : 0)));
              const m = message === undefined ? lastProgress.message : message.slice(0, MESSAGE_MAX);
              if (p === lastProgress.percent && m === lastProgress.message) return;
              lastProgress = { percent: p, message: m };
              const [updated] = await db.update(jobs).set({ progress: p, message: m }).where(mine).returning();
              emit(updated);
            },
            saveResultFile: async ({ fileName, contentType, data }) => {
              const size = await files.write(row.jobId, data);
              savedFile = { fileName: fileName.slice(0, 200), contentType: contentType.slice(0, 100), size };
            },
          },
        );
        const stop = reason();
        if (stop === 'shutdown' || stop === 'lost') return await requeue(stop);
        if (stop === 'cancelled') return await cancelled();
        const file = savedFile as { fileName: string; contentType: string; size: number } | null;
        await finish('done', {
          progress: 100,
          result: result === undefined ? null : (result as object),
          resultFileName: file?.fileName ?? null,
          resultContentType: file?.contentType ?? null,
          resultSize: file?.size ?? null,
          finishedAt: clock(),
        });
        deps.log('info', { jobId: row.jobId, kind: row.kind }, 'job done');
        return 'done';
      } catch (err) {
        const stop = reason();
        if (stop === 'shutdown' || stop === 'lost') return await requeue(stop);
        if (stop === 'cancelled') return await cancelled();
        await files.remove(row.jobId).catch(() => undefined);
        await finish('failed', { error: ownerMessage(err), finishedAt: clock() });
        // The error's class only: its message may quote a value.
        deps.log('warn', { jobId: row.jobId, kind: row.kind, err: (err as Error)?.name ?? typeof err }, 'job failed');
        return 'failed';
      } finally {
        clearInterval(heartbeat);
        await beating;
        shutdown.removeEventListener('abort', onShutdown);
        active.delete(row.jobId);
      }

      // The result file stays: the next run replaces it, and after a lost claim it may be the new owner's.
      async function requeue(why: string): Promise<Outcome> {
        if (why === 'shutdown') await finish('queued', { message: null });
        deps.log('info', { jobId: row.jobId, kind: row.kind, why }, 'job put back in the queue');
        return 'requeued';
      }
      async function cancelled(): Promise<Outcome> {
        await files.remove(row.jobId).catch(() => undefined);
        await finish('cancelled', { finishedAt: clock() });
        deps.log('info', { jobId: row.jobId, kind: row.kind }, 'job cancelled while running');
        return 'cancelled';
      }
    },
  };
}

export type JobCore = ReturnType<typeof createJobCore>;

/** The queue's methods that read or listen through the core alone: the same for the local and the BullMQ queue. */
export function coreReads(core: JobCore): Pick<JobQueue, 'get' | 'list' | 'openResult' | 'useLog' | 'onProgress'> {
  return {
    async get(jobId) {
      const row = await core.get(jobId);
      return row ? toView(row) : null;
    },
    list: (ownerId, page) => core.list(ownerId, page),
    openResult: (jobId) => core.openResult(jobId),
    useLog() {
      // The log is given by createJobQueue, which forwards to whatever useLog set there.
    },
    onProgress(listener) {
      core.listeners.add(listener);
      return () => core.listeners.delete(listener);
    },
  };
}
