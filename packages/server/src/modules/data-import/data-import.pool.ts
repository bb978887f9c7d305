import { Piscina } from 'piscina';
import { DATA_IMPORT_LIMITS } from '@ecrf/core';
import { AppError } from '../../shared/app-error.js';
import { workerEntry } from '../../server-paths.js';
import type { WorkbookOutcome, WorkbookTask, ReadSheet } from './data-import.worker.js';

export type { ReadSheet };

export interface WorkbookPool {
  /** Reads one workbook on a worker thread; refusals (format, caps, time, memory) are AppErrors. */
  read(data: Buffer): Promise<ReadSheet[]>;
  close(): Promise<void>;
}

const WORKER = workerEntry('data-import.worker.js', new URL('./data-import.worker.mjs', import.meta.url));

const tooLarge = (message: string) => AppError.badRequest('import.too_large', message);

/**
 * The CRF upload's pattern (study/crf-import.pool.ts): one worker started on demand and stopped after a minute
 * idle, a time cap enforced by terminating the worker, a heap cap that ends the worker rather than the server.
 */
export function createWorkbookPool(limits = DATA_IMPORT_LIMITS): WorkbookPool {
  let pool: Piscina | undefined;
  const started = () =>
    (pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: 1,
      maxQueue: 8,
      idleTimeout: 60_000,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 768 },
    }));
  return {
    async read(data) {
      if (data.length > limits.fileBytes) {
        throw tooLarge(`文件超过${Math.round(limits.fileBytes / 1024 / 1024)}MB，请拆分后导入`);
      }
      const task: WorkbookTask = {
        data: new Uint8Array(data),
        limits: { rows: limits.rows, columns: limits.columns, sheets: limits.sheets },
      };
      let outcome: WorkbookOutcome;
      try {
        outcome = (await started().run(task, {
          signal: AbortSignal.timeout(limits.parseSeconds * 1000),
        })) as WorkbookOutcome;
      } catch (error) {
        const name = (error as { name?: string }).name;
        const code = (error as { code?: string }).code;
        if (name === 'AbortError' || name === 'TimeoutError') {
          throw tooLarge(`文件读取超过${limits.parseSeconds}秒，请拆分后导入`);
        }
        if (code === 'ERR_WORKER_OUT_OF_MEMORY') throw tooLarge('文件读取所需内存超出上限，请拆分后导入');
        if (/queue is at limit/i.test((error as Error).message ?? '')) {
          throw new AppError(503, 'import.busy', '正在处理其他导入文件，请稍后再试');
        }
        throw error;
      }
      if (outcome.kind === 'refused') throw AppError.badRequest(outcome.code, outcome.message);
      return outcome.sheets;
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
