import type * as Bull from 'bullmq';
import type { Job, Worker } from 'bullmq';
import type * as IORedis from 'ioredis';
import { loadCommonJs } from '../../shared/load-common-js.js';
import { coreReads, createJobCore, workerName, type JobCoreDeps, toView } from './job-core.js';
import type { JobQueue } from './job-queue.js';
import { CLOSE_WAIT_MS, settleWithin } from './local-queue.js';

export interface BullQueueOptions extends JobCoreDeps {
  redisUrl: string;
  /** The BullMQ queue name; tests give each run its own. */
  queueName?: string;
  concurrency?: number;
}

interface BullData {
  jobId: string;
}

/**
 * BullMQ carries the execution (which app server runs a job, retries after a crash through its stalled-job
 * check); the job record stays in the `jobs` table, so what the owner reads is the same as with the
 * in-process queue. Cancels are written to the record: a waiting job is removed from Redis and, should it be
 * picked up anyway, skipped; a running one learns of it at its next heartbeat on whichever server runs it.
 */
const UNKNOWN_KIND_DELAY_MS = 500;

export function createBullQueue(options: BullQueueOptions): JobQueue {
  // Loaded here, with REDIS_URL set, not at every start (shared/kv.ts).
  const { DelayedError, Queue, Worker } = loadCommonJs('bullmq') as typeof Bull;
  const { Redis } = loadCommonJs('ioredis') as typeof IORedis;
  const core = createJobCore(options);
  const name = options.queueName ?? 'edc-jobs';
  const worker = workerName();
  const shutdown = new AbortController();
  // Workers block on Redis: BullMQ wants its own connection without a retry limit for them.
  const queueConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  const workerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue<BullData>(name, { connection: queueConnection, prefix: 'edc' });
  let bull: Worker<BullData> | undefined;
  const running = new Set<Promise<unknown>>();

  async function runBullJob(job: Job<BullData>, token?: string) {
    // A kind this server has no handler for (not registered yet while the app starts, or a server of another
    // version) is left for a server that has one, instead of failing as unknown.
    if (!core.handlers.has(job.name)) {
      await job.moveToDelayed(Date.now() + UNKNOWN_KIND_DELAY_MS, token);
      throw new DelayedError();
    }
    const row = await core.claim(job.data.jobId, worker);
    // Cancelled (or gone) before it started: nothing to run.
    if (!row) return;
    const run = core.execute(row, worker, shutdown.signal);
    running.add(run);
    const outcome = await run.finally(() => running.delete(run));
    if (outcome === 'requeued' && shutdown.signal.aborted) {
      // Back to the queue at once: the next worker to start (here or on another server) runs it again.
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
  }

  function startWorker() {
    if (bull || shutdown.signal.aborted) return;
    bull = new Worker<BullData>(name, runBullJob, {
      connection: workerConnection,
      prefix: 'edc',
      concurrency: options.concurrency ?? 2,
      // A crashed server's job is taken again after its lock runs out.
      maxStalledCount: 3,
    });
    bull.on('error', (err) => options.log('error', { err: err.name }, 'job worker error'));
  }

  return {
    ...coreReads(core),
    implementation: 'bullmq',
    handle(kind, handler) {
      core.handle(kind, handler);
      startWorker();
    },
    async enqueue(kind, payload, owner) {
      const row = await core.insert(kind, payload, owner);
      await queue.add(kind, { jobId: row.jobId }, { jobId: row.jobId, removeOnComplete: true, removeOnFail: true });
      return toView(row);
    },
    async cancel(jobId) {
      const { row, wasQueued } = await core.cancel(jobId);
      if (wasQueued) await queue.remove(jobId).catch(() => 0);
      return row ? toView(row) : null;
    },
    async close() {
      shutdown.abort('shutdown');
      await settleWithin(Promise.all(running), CLOSE_WAIT_MS);
      await bull?.close();
      await queue.close();
      await Promise.all([
        queueConnection.quit().catch(() => undefined),
        workerConnection.quit().catch(() => undefined),
      ]);
    },
  };
}
