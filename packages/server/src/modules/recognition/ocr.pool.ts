import { Piscina } from 'piscina';
import type { OcrLine } from '@ecrf/core';
import { workerEntry } from '../../server-paths.js';
import type { OcrOutcome, OcrTask } from './recognition.worker.js';

const WORKER = workerEntry('recognition.worker.js', new URL('./recognition.worker.mjs', import.meta.url));

/** Why an image was not read. */
export class OcrUnavailable extends Error {
  constructor() {
    super('ocr engine unavailable');
    this.name = 'OcrUnavailable';
  }
}

export interface OcrPool {
  /** The OCR's pieces of text of one image; OcrUnavailable when the engine cannot load here. */
  read(image: Buffer, signal?: AbortSignal): Promise<{ lines: OcrLine[]; seconds: number }>;
  close(): Promise<void>;
}

/**
 * One worker thread, started on the first image and stopped after five minutes idle (loading the models takes
 * about half a second, reading a report one to three seconds on this machine kind). The job queue runs
 * recognitions one after another; the thread's queue bounds what waits beside them.
 */
export function createOcrPool(): OcrPool {
  let pool: Piscina | undefined;
  const started = () =>
    (pool ??= new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: 1,
      maxQueue: 16,
      idleTimeout: 300_000,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    }));
  return {
    async read(image, signal) {
      const task: OcrTask = { data: new Uint8Array(image) };
      const outcome = (await started().run(task, signal ? { signal } : {})) as OcrOutcome;
      if (outcome.kind === 'unavailable') throw new OcrUnavailable();
      return { lines: outcome.lines, seconds: outcome.seconds };
    },
    async close() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}

let shared: OcrPool | undefined;
/** The process's pool (the job handler and the benchmark share it). */
export function ocrPool(): OcrPool {
  return (shared ??= createOcrPool());
}
