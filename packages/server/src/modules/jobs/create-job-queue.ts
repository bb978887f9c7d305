import type { Db } from '../../db/client.js';
import type { FileStorage } from '../../shared/file-storage.js';
import { createBullQueue } from './bullmq-queue.js';
import type { JobCoreDeps } from './job-core.js';
import { jobFiles } from './job-files.js';
import type { JobQueue } from './job-queue.js';
import { createLocalQueue } from './local-queue.js';

export interface JobQueueSetup {
  db: Db;
  /** Where result files are kept: the context's file storage. */
  files: FileStorage;
  redisUrl: string | undefined;
  clock: () => Date;
  log?: JobCoreDeps['log'];
  /** Jobs run at once by one process (default 2): the rest wait, so requests keep their share of the CPU. */
  concurrency?: number;
  /** BullMQ queue name (tests give each their own). */
  queueName?: string;
  heartbeatMs?: number;
  leaseMs?: number;
  pollMs?: number;
}

const silent: JobCoreDeps['log'] = () => undefined;

/** BullMQ when REDIS_URL is set, otherwise the queue on the database. */
export function createJobQueue(setup: JobQueueSetup): JobQueue {
  let log = setup.log ?? silent;
  const deps = {
    db: setup.db,
    files: jobFiles(setup.files),
    clock: setup.clock,
    log: ((level, fields, msg) => log(level, fields, msg)) satisfies JobCoreDeps['log'],
    heartbeatMs: setup.heartbeatMs,
    leaseMs: setup.leaseMs,
    concurrency: setup.concurrency,
  };
  const queue = setup.redisUrl
    ? createBullQueue({ ...deps, redisUrl: setup.redisUrl, queueName: setup.queueName })
    : createLocalQueue({ ...deps, pollMs: setup.pollMs });
  return {
    ...queue,
    implementation: queue.implementation,
    useLog(next) {
      log = next;
    },
  };
}
