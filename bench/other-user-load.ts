/**
 * Another user working while a background job runs, as the job benches measure it: one loop opening a patient's
 * form (`GET /api/v3/business/crf/:id`) and one saving records of the same form (re-read and saved again on 409, as
 * the page does), each one request after another. `measured` runs `work` under that load and prints its time, the
 * event loop's delay and the p50/p99 of those requests.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { eq } from 'drizzle-orm';
import type { Db } from '../packages/server/src/db/client.js';
import { crfDataRecords } from '../packages/server/src/db/schema/index.js';
import type { BenchAnswer } from './harness.js';

export const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
};

interface Target {
  id: number;
  subjectRecordId: number;
}

export function otherUserLoad(options: {
  db: Db;
  call: (method: string, url: string, body?: unknown) => Promise<BenchAnswer>;
  crfId: number;
  probe: Target;
  saveTargets: Target[];
  /** The item the saver changes, and its n-th value. */
  change: (n: number) => Record<string, unknown>;
}) {
  const { db, call, crfId, probe, saveTargets } = options;
  return async function measured<T>(label: string, work: () => Promise<T>): Promise<{ out: T; seconds: number }> {
    let running = true;
    const reads: number[] = [];
    const saves: number[] = [];
    let conflicts = 0;
    let failures = 0;
    const reading = (async () => {
      while (running) {
        const t0 = performance.now();
        const answer = await call('GET', `/api/v3/business/crf/${probe.subjectRecordId}?crfId=${crfId}`);
        if (answer.code !== 200) throw new Error(`form read: ${answer.code} ${answer.msg}`);
        reads.push(performance.now() - t0);
      }
    })();
    const saving = (async () => {
      for (let n = 0; running; n++) {
        const record = saveTargets[n % saveTargets.length]!;
        const [row] = await db.select().from(crfDataRecords).where(eq(crfDataRecords.id, record.id));
        const t0 = performance.now();
        const answer = await call('PUT', '/api/v3/business/crf', {
          subjectRecordId: record.subjectRecordId,
          crfId,
          crfDataRecordId: record.id,
          version: row!.version,
          values: { ...row!.values, ...options.change(n) },
        });
        saves.push(performance.now() - t0);
        if (answer.code === 409) conflicts += 1;
        else if (answer.code !== 200) failures += 1;
      }
    })();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const out = await work();
    const seconds = (performance.now() - t0) / 1000;
    running = false;
    await Promise.all([reading, saving]);
    loop.disable();
    const ms = (ns: number) => (ns / 1e6).toFixed(0);
    console.log(
      `  ${label.padEnd(24)} ${seconds.toFixed(1).padStart(6)} s   event-loop delay p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms\n` +
        `    ${reads.length} form reads: p50 ${percentile(reads, 0.5)} ms, p99 ${percentile(reads, 0.99)} ms;` +
        `   ${saves.length} saves: p50 ${percentile(saves, 0.5)} ms, p99 ${percentile(saves, 0.99)} ms` +
        ` (${conflicts} moved under the saver: 409, saved again; ${failures} failed)`,
    );
    return { out, seconds };
  };
}

/** Polls a job until it ends (done, failed or cancelled) and answers its last view. */
export async function jobEnd(call: (method: string, url: string) => Promise<BenchAnswer>, jobId: string) {
  for (;;) {
    const now = await call('GET', `/api/system/jobs/${jobId}`);
    if (now.code !== 200) throw new Error(`job: ${now.code} ${now.msg}`);
    if (['done', 'failed', 'cancelled'].includes(now.data.state)) return now.data;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
