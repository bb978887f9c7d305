/**
 * The saves of `bench/crf-save.ts`, sent over HTTP from a worker thread of their own. In use the clients are
 * browsers on other machines: sending the requests and parsing the answers on the app's own event loop would
 * charge the app for its load generator (undici's fetch was 5–7% of the app process's CPU in a profile), while
 * the raw writes beside it have no HTTP client to pay for. The worker shares the process, not the event loop.
 *
 * `runSaves` starts a worker for one closed or open loop and answers its figures and the records' new versions.
 */
import { Worker, isMainThread, parentPort, threadId, workerData } from 'node:worker_threads';

export interface SaveTarget {
  subjectRecordId: number;
  crfDataRecordId?: number;
  version: number;
}

export interface Figures {
  rate: number;
  p50: number;
  p99: number;
}

export type LoadPlan =
  { mode: 'closed'; clients: number; total: number } | { mode: 'open'; rate: number; seconds: number };

interface LoadInput {
  base: string;
  token: string;
  crfId: number;
  records: SaveTarget[];
  plan: LoadPlan;
}

export interface LoadResult {
  figures: Figures;
  records: SaveTarget[];
  /** Open loop only: saves not sent because every patient still had one in flight. */
  dropped: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export const figuresOf = (samples: number[], seconds: number): Figures => {
  const s = [...samples].sort((a, b) => a - b);
  return { rate: samples.length / seconds, p50: percentile(s, 0.5), p99: percentile(s, 0.99) };
};

/** One form save as the study nurse: two items change on every save (two audit rows), as a correction would. */
export function saver(base: string, token: string, crfId: number, tag: string) {
  let tick = 0;
  return async (record: SaveTarget) => {
    tick++;
    const res = await fetch(`${base}/api/v3/business/crf`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subjectRecordId: record.subjectRecordId,
        crfId,
        crfDataRecordId: record.crfDataRecordId,
        version: record.version,
        requestId: `bench-${tag}-${tick}`,
        values: { sbp: 100 + (tick % 60), dbp: 80, hr: 50 + (tick % 50), temp: 36.5 },
      }),
    });
    const envelope = (await res.json()) as {
      code: number;
      msg: string;
      data: { crfDataRecordId: number; version: number };
    };
    if (envelope.code !== 200) throw new Error(`save: ${envelope.code} ${envelope.msg}`);
    record.crfDataRecordId = envelope.data.crfDataRecordId;
    record.version = envelope.data.version;
  };
}

/** Closed loop: each client sends its next save when its last one answered. */
export async function closedLoop(clients: number, total: number, once: (client: number, n: number) => Promise<void>) {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = next++; n < total; n = next++) {
        const t0 = performance.now();
        await once(client, n);
        samples.push(performance.now() - t0);
      }
    }),
  );
  return figuresOf(samples, (performance.now() - started) / 1000);
}

/** Open loop: saves leave on a schedule whatever the answers do; latency runs from the scheduled time. */
async function openLoop(records: SaveTarget[], rate: number, seconds: number, save: (r: SaveTarget) => Promise<void>) {
  const free = [...records];
  const latencies: number[] = [];
  let dropped = 0;
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const record = free.shift();
    if (!record) {
      dropped++;
      continue;
    }
    inFlight.push(
      save(record).then(() => {
        latencies.push(performance.now() - due);
        free.push(record);
      }),
    );
  }
  await Promise.all(inFlight);
  return { figures: figuresOf(latencies, seconds), dropped };
}

async function work(input: LoadInput): Promise<LoadResult> {
  const save = saver(input.base, input.token, input.crfId, `w${process.pid}-${threadId}`);
  const { plan, records } = input;
  if (plan.mode === 'closed') {
    const figures = await closedLoop(plan.clients, plan.total, (client) => save(records[client]!));
    return { figures, records, dropped: 0 };
  }
  return { ...(await openLoop(records, plan.rate, plan.seconds, save)), records };
}

/**
 * Runs one loop in a worker thread running this module. A worker does not inherit the loader hooks tsx
 * registered in the main thread, so it registers them itself before importing this file.
 */
export function runSaves(input: LoadInput): Promise<LoadResult> {
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(bootstrap, { eval: true, workerData: input });
    worker.once('message', (result: LoadResult) => resolve(result));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`save load worker exited with ${code}`)));
  });
}

if (!isMainThread && parentPort && (workerData as LoadInput | undefined)?.plan) {
  parentPort.postMessage(await work(workerData as LoadInput));
}
