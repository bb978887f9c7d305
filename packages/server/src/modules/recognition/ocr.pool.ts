import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { LabRow, OcrLine } from '@ecrf/core';
import { workerEntry } from '../../server-paths.js';
import type { OCR_PROCESS_FLAG, OcrMessage, OcrOutcome, OcrTask } from './recognition.worker.js';

const ENTRY = new URL(workerEntry('recognition.worker.js', new URL('./recognition.worker.mjs', import.meta.url)));
/** Spelled here too: a value import of the worker module would load sharp and pdf.js into the server. */
const FLAG: typeof OCR_PROCESS_FLAG = '--ocr-process';

/** Why an image was not read. */
export class OcrUnavailable extends Error {
  constructor() {
    super('ocr engine unavailable');
    this.name = 'OcrUnavailable';
  }
}

/**
 * An image the OCR would not, or was not let, finish: `too-large` is refused from its declared size before
 * decoding; `too-many-pages`, a PDF of more pages than are read (pdf-pages.ts), refused whole; `orientation` read
 * alike upright and turned 180° (which way up is not told); `timeout` and `memory` were stopped by the pool's
 * bounds (OcrLimits), their process killed.
 */
export class OcrRefused extends Error {
  constructor(readonly reason: 'too-large' | 'too-many-pages' | 'orientation' | 'timeout' | 'memory') {
    super(`ocr refused: ${reason}`);
    this.name = 'OcrRefused';
  }
}

export interface OcrLimits {
  /** A task running longer is stopped: its process is killed (ms). */
  timeoutMs: number;
  /** A task during which the OCR process's resident memory grows by more is stopped: its process is killed (MiB). */
  memoryMb: number;
  /** The OCR process's V8 heap (MiB); V8 ends the process when it is reached. */
  heapMb: number;
  /** The process ends after this long without a task (ms). */
  idleMs: number;
}

/**
 * Measured on the 2-core machine (docs/recognition.md): a report takes 2–12 s, the slowest 30 s under heavy load;
 * the first task of a process grows it by up to 1.3 GB (node, the models, pdf.js and the OCR of a 2000-pixel page),
 * later ones by 0.1–0.7 GB; its heap stays under 256 MB. The bounds leave room for that, not for a bomb.
 */
export const OCR_LIMITS: OcrLimits = { timeoutMs: 90_000, memoryMb: 2048, heapMb: 1024, idleMs: 300_000 };

/** How often the OCR process's resident memory is read while a task runs (ms): at 200 MB/s, 20 MB late. */
const SAMPLE_MS = 100;
const MIB = 1024 * 1024;

/** A process's resident memory in bytes (Linux); undefined where /proc is not, or once the process has ended. */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

export interface OcrPool {
  /**
   * The OCR's pieces of text of one image (or of a PDF's pages); OcrUnavailable when the engine cannot load here, OcrRefused when the
   * image is too large or its task outgrew a bound. `rows`: the report's rows parsed there, each with its crop.
   */
  read(image: Buffer, signal?: AbortSignal): Promise<{ lines: OcrLine[]; rows?: LabRow[]; seconds: number }>;
  /** The OCR process's id while one runs (its memory can be read from outside, as the bounds do). */
  processId(): number | undefined;
  close(): Promise<void>;
}

/**
 * The OCR runs in a child process, started on the first image and ended after five minutes idle, one task at a
 * time so the time and memory a task is measured by are its own. A process, not a worker thread: what an image or
 * a PDF decodes to (ArrayBuffers, native canvases, libvips and onnxruntime buffers) lies outside the V8 heap that a
 * thread's resourceLimits bound, and the C allocator keeps a terminated thread's memory in the server (measured:
 * 1.8 GB still resident after a bomb's thread was ended); a killed process gives everything back at once, and a
 * crash in a native decoder ends it, not the server.
 */
export function createOcrPool(limits: Partial<OcrLimits> = {}): OcrPool {
  const { timeoutMs, memoryMb, heapMb, idleMs } = { ...OCR_LIMITS, ...limits };
  let current: { process: ChildProcess; ready: Promise<void> } | undefined;
  let idle: NodeJS.Timeout | undefined;
  let turn: Promise<unknown> = Promise.resolve();

  function start() {
    const child = fork(ENTRY, [FLAG], {
      // Not the server's own flags (a test runner's loaders, its inspector), but its source maps.
      execArgv: [
        `--max-old-space-size=${heapMb}`,
        ...process.execArgv.filter((flag) => flag === '--enable-source-maps'),
      ],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', (message: OcrMessage) => {
        if (message.kind === 'ready') resolve();
        else reject(new Error('the OCR process did not start'));
      });
      child.once('exit', () => reject(new Error('the OCR process did not start')));
      child.once('error', reject);
    });
    ready.catch(() => undefined);
    // Idle, it keeps no one waiting (a task's own timers hold the server while it runs).
    child.unref();
    child.channel?.unref();
    const gone = () => {
      if (current?.process === child) current = undefined;
    };
    child.once('exit', gone);
    // Not started at all, or a message it could not take (its channel closed): the next image tries a new one.
    child.on('error', gone);
    return { process: child, ready };
  }

  function end(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
    if (current?.process === child) current = undefined;
    child.kill(signal);
  }

  async function run(image: Buffer, signal: AbortSignal | undefined): Promise<OcrOutcome> {
    signal?.throwIfAborted();
    clearTimeout(idle);
    const ocr = (current ??= start());
    const child = ocr.process;
    const before = residentBytes(child.pid) ?? 0;
    let exceeded: 'timeout' | 'memory' | undefined;
    const stop = (reason: 'timeout' | 'memory') => {
      exceeded ??= reason;
      end(child);
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const sampler = setInterval(() => {
      const now = residentBytes(child.pid);
      if (now !== undefined && now - before > memoryMb * MIB) stop('memory');
    }, SAMPLE_MS);
    const aborted = () => end(child);
    signal?.addEventListener('abort', aborted);
    try {
      await ocr.ready;
      return await new Promise<OcrOutcome>((resolve, reject) => {
        const settle = () => {
          child.off('message', onMessage);
          child.off('exit', onExit);
        };
        const onMessage = (message: OcrMessage) => {
          if (message.kind === 'ready') return;
          settle();
          if (message.kind === 'done') resolve(message.outcome);
          else reject(new Error(message.message));
        };
        const onExit = (_code: number | null, killedBy: NodeJS.Signals | null) => {
          settle();
          reject(new Error(`the OCR process ended (${killedBy ?? _code})`));
        };
        child.on('message', onMessage);
        child.on('exit', onExit);
        // A copy of exactly the image: a small Buffer is a view into a shared slab, which would be sent whole.
        const task: OcrTask = { data: new Uint8Array(image) };
        child.send(task, (err) => {
          if (!err) return;
          settle();
          reject(err);
        });
      });
    } catch (err) {
      if (exceeded) throw new OcrRefused(exceeded);
      // V8 aborts the process when the heap bound is reached.
      if (child.signalCode === 'SIGABRT' && !signal?.aborted) throw new OcrRefused('memory');
      throw err;
    } finally {
      clearTimeout(timer);
      clearInterval(sampler);
      signal?.removeEventListener('abort', aborted);
      if (current?.process === child) {
        idle = setTimeout(() => end(child, 'SIGTERM'), idleMs);
        idle.unref();
      }
    }
  }

  return {
    async read(image, signal) {
      const mine = turn.then(() => run(image, signal));
      turn = mine.catch(() => undefined);
      const outcome = await mine;
      if (outcome.kind === 'unavailable') throw new OcrUnavailable();
      if (outcome.kind === 'too-large') throw new OcrRefused('too-large');
      if (outcome.kind === 'too-many-pages') throw new OcrRefused('too-many-pages');
      if (outcome.kind === 'orientation') throw new OcrRefused('orientation');
      return { lines: outcome.lines, ...(outcome.rows ? { rows: outcome.rows } : {}), seconds: outcome.seconds };
    },
    processId: () => current?.process.pid,
    async close() {
      clearTimeout(idle);
      const child = current?.process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      end(child);
      await exited;
    },
  };
}

let shared: OcrPool | undefined;
/** The process's pool (the job handler and the benchmark share it). */
export function ocrPool(): OcrPool {
  return (shared ??= createOcrPool());
}
