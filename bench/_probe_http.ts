/**
 * Data import (SRCH-06) at 10,000 rows × 30 items: one sheet of a 30-item form, one row per patient, through
 * the HTTP route on the default embedded database (PGlite on disk, fsync on). Prints the time and the peak RSS
 * of the preview (dry run) and of the import (a background job above 500 rows, followed to its end), and the
 * p50/p99 of a patient-list read issued in a loop by another client meanwhile (goal: p99 < 100 ms).
 * Prints figures; no thresholds here. BENCH_ROWS changes the row count; BENCH_DATABASE_URL runs it on PostgreSQL.
 */
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { buildApp } from '../packages/server/src/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { openDurablePglite, wrapPglite, wrapPostgres } from '../packages/server/src/db/client.js';
import { seedDemoStudy } from '../packages/server/src/db/demo-study.js';
import { subjectRecords, subjects, users } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { createTokenService } from '../packages/server/src/modules/auth/token.service.js';
import { createOutbox } from '../packages/server/src/modules/events/outbox.js';
import { createJobQueue } from '../packages/server/src/modules/jobs/create-job-queue.js';
import { createRealtime } from '../packages/server/src/modules/realtime/realtime.hub.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';
import { localFileStorage } from '../packages/server/src/shared/file-storage.js';
import { memoryStore } from '../packages/server/src/shared/kv.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-probe-'));
const databaseUrl = new URL('postgres://postgres@127.0.0.1:5432/edc_probe');
const serverUrl = 1;
const database = databaseUrl
  ? wrapPostgres(databaseUrl.toString())
  : wrapPglite(await openDurablePglite(path.join(dir, 'db')));
const clock = () => new Date();
const config = { ...loadConfig({ EDC_CAPTCHA: 'off', DATA_DIR: dir }), loginRateLimitPerMinute: 1_000_000 };
const files = localFileStorage(dir);
const app = await buildApp({
  config,
  db: database.db,
  kv: memoryStore(),
  tokens: createTokenService(new TextEncoder().encode('bench-secret-bench-secret-bench-secret'), 1800, clock),
  fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)),
  files,
  jobs: createJobQueue({ db: database.db, files, redisUrl: undefined, clock }),
  clock,
  realtime: createRealtime(),
  events: createOutbox({ db: database.db, listen: database.listen }),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
const login = (await (
  await fetch(`${base}/api/ignore/sys/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: '13800000000', password: 'Bench@123' }),
  })
).json()) as { data: { token: string } };
const token = login.data.token;
const call = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as { code: number; msg: string; data: any };
};

const studyId = 1;
(globalThis as any).__stmts.byKind.clear();
const samples: number[] = [];
for (let i = 0; i < 300; i++) {
  const t0 = performance.now();
  const r = await call('POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 });
  samples.push(performance.now() - t0);
  if (i === 0) console.log(JSON.stringify(r).slice(0, 300));
}
samples.sort((a, b) => a - b);
console.log('p50', samples[150].toFixed(1), 'p99', samples[297].toFixed(1));
await app.close();
await database.close();
