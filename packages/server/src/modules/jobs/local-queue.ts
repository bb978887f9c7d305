import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { jobs } from '../../db/schema/index.js';
import { coreReads, createJobCore, workerName, type JobCoreDeps, toView } from './job-core.js';
import type { JobQueue } from './job-queue.js';

/**
 * How long closing waits for running handlers to notice the abort. A handler that ignores it is left
 * behind: its claim runs out and the next start runs the job again.
 */
export const CLOSE_WAIT_MS = 10_000;

export async function settleWithin(work: Promise<unknown>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export interface LocalQueueOptions extends JobCoreDeps {
  /** Jobs run at once by this process, so jobs never starve requests (default 2). */
  concurrency?: number;
  /** How often to look for jobs queued by another process or left by a restart (ms, default 2000). */
  pollMs?: number;
}

/**
 * The queue on the embedded database: jobs are rows, taken with `for update skip locked` and held by a claim
 * renewed by a heartbeat. A restart finds its queued jobs, and a job whose claim ran out (its process died)
 * is taken again and run from the start. Works for several processes on one PostgreSQL too.
 */
export function createLocalQueue(options: LocalQueueOptions): JobQueue {
  const core = createJobCore(options);
  const { db, clock } = options;
  const concurrency = options.concurrency ?? 2;
  const pollMs = options.pollMs ?? 2_000;
  const worker = workerName();
  const shutdown = new AbortController();
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | null = null;
  let again = false;

  async function claimNext() {
    const kinds = [...core.handlers.keys()];
    if (kinds.length === 0) return undefined;
    const now = clock();
    // A job asked to stop whose process died while it ran is cancelled, not run again.
    await db
      .update(jobs)
      .set({ state: 'cancelled', finishedAt: now, lockedBy: null, lockedUntil: null })
      .where(and(eq(jobs.state, 'running'), eq(jobs.cancelRequested, true), lt(jobs.lockedUntil, now)));
    const next = db
      .select({ jobId: jobs.jobId })
      .from(jobs)
      .where(
        and(
          inArray(jobs.kind, kinds),
          eq(jobs.cancelRequested, false),
          sql`(${jobs.state} = 'queued' or (${jobs.state} = 'running' and ${jobs.lockedUntil} < ${now}))`,
        ),
      )
      .orderBy(jobs.createdAt)
      .limit(1)
      .for('update', { skipLocked: true });
    const [row] = await db
      .update(jobs)
      .set({
        state: 'running',
        lockedBy: worker,
        lockedUntil: new Date(now.getTime() + core.leaseMs),
        attempts: sql`${jobs.attempts} + 1`,
        startedAt: now,
        progress: 0,
        message: null,
      })
      .where(inArray(jobs.jobId, next))
      .returning();
    return row;
  }

  async function pumpOnce() {
    while (!shutdown.signal.aborted && running.size < concurrency) {
      const row = await claimNext();
      if (!row) return;
      const run = core
        .execute(row, worker, shutdown.signal)
        .catch((err: unknown) =>
          options.log('error', { jobId: row.jobId, err: (err as Error)?.name }, 'job record could not be written'),
        )
        .finally(() => {
          running.delete(run);
          pump();
        });
      running.add(run);
    }
  }

  /** Looks for work; calls while one look is under way make it look once more at its end. */
  function pump() {
    if (shutdown.signal.aborted) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = (async () => {
      do {
        again = false;
        try {
          await pumpOnce();
        } catch (err) {
          options.log('error', { err: (err as Error)?.name }, 'job queue could not read the jobs table');
        }
      } while (again && !shutdown.signal.aborted);
    })().finally(() => {
      pumping = null;
    });
  }

  return {
    ...coreReads(core),
    implementation: 'local',
    handle(kind, handler) {
      core.handle(kind, handler);
      if (!timer && !shutdown.signal.aborted) {
        timer = setInterval(pump, pollMs);
        timer.unref();
      }
      // Jobs of this kind left by the last run start now rather than at the next poll.
      queueMicrotask(pump);
    },
    async enqueue(kind, payload, owner) {
      const row = await core.insert(kind, payload, owner);
      pump();
      return toView(row);
    },
    async cancel(jobId) {
      const { row } = await core.cancel(jobId);
      return row ? toView(row) : null;
    },
    async close() {
      if (timer) clearInterval(timer);
      shutdown.abort('shutdown');
      await pumping;
      await settleWithin(Promise.all(running), CLOSE_WAIT_MS);
    },
  };
}
