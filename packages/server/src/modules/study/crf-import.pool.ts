import { Piscina } from 'piscina';
import { CRF_IMPORT_LIMITS, importLimitMessages, type CrfImportLimits } from '@ecrf/core/interop';
import { AppError } from '../../shared/app-error.js';
import { workerEntry } from '../../server-paths.js';
import type { CrfImportOutcome, CrfImportTask } from './crf-import.worker.js';

export interface UploadedFile {
  fileName: string;
  data: Buffer;
}

export interface CrfImportPool {
  /** Reads one file on a worker thread; refusals (format, caps, time, memory) are AppErrors. */
  read(file: UploadedFile): Promise<Extract<CrfImportOutcome, { kind: 'read' }>>;
  close(): Promise<void>;
}

export interface CrfImportPoolOptions {
  limits?: CrfImportLimits;
  /** Worker threads reading files at once; more uploads wait in a short queue. */
  threads?: number;
  /** Uploads allowed to wait; beyond that the caller is asked to try again. */
  queue?: number;
  /** Heap of one worker: a file needing more is refused instead of growing the server. */
  heapMb?: number;
}

const WORKER = workerEntry('crf-import.worker.js', new URL('./crf-import.worker.mjs', import.meta.url));

function tooLarge(message: string) {
  return AppError.badRequest('crf.too_large', message);
}

/**
 * Workers start on the first upload and stop after a minute idle. A file that takes longer than its time is
 * abandoned by terminating its worker (a runaway parse cannot be interrupted any other way); one that needs
 * more memory than the worker's heap ends its worker, not the server.
 */
export function createCrfImportPool(options: CrfImportPoolOptions = {}): CrfImportPool {
  const limits = options.limits ?? CRF_IMPORT_LIMITS;
  let pool: Piscina | undefined;
  const started = () =>
    (pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      maxQueue: options.queue ?? 8,
      idleTimeout: 60_000,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? 768 },
    }));
  return {
    async read(file) {
      if (file.data.length > limits.fileBytes) throw tooLarge(importLimitMessages.fileBytes(limits));
      const task: CrfImportTask = { fileName: file.fileName, data: new Uint8Array(file.data), limits };
      let outcome: CrfImportOutcome;
      try {
        outcome = (await started().run(task, {
          signal: AbortSignal.timeout(limits.parseSeconds * 1000),
        })) as CrfImportOutcome;
      } catch (error) {
        const name = (error as { name?: string }).name;
        const code = (error as { code?: string }).code;
        if (name === 'AbortError' || name === 'TimeoutError') throw tooLarge(importLimitMessages.parseSeconds(limits));
        if (code === 'ERR_WORKER_OUT_OF_MEMORY') throw tooLarge(importLimitMessages.memory());
        if (/queue is at limit/i.test((error as Error).message ?? '')) {
          throw new AppError(503, 'crf.busy', importLimitMessages.busy());
        }
        throw error;
      }
      if (outcome.kind === 'refused') throw AppError.badRequest(outcome.code, outcome.message);
      return outcome;
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
