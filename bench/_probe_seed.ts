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

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const ITEMS = 30;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-bench-import-'));
// BENCH_DATABASE_URL=postgres://…: the same run on a PostgreSQL server, in a database of its own (dropped after).
const serverUrl = process.env.BENCH_DATABASE_URL;
const benchDb = `edc_probe`;
async function admin(statement: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(statement);
  await client.end();
}
let databaseUrl: URL | undefined;
if (serverUrl) {
  await admin(`CREATE DATABASE ${benchDb}`);
  databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${benchDb}`;
}
const database = databaseUrl
  ? wrapPostgres(databaseUrl.toString())
  : wrapPglite(await openDurablePglite(path.join(dir, 'db')));
await database.migrate();
await seed(database.db, { adminPassword: 'Bench@123', version: 'bench' });
await seedDemoStudy(database.db);
await database.db.update(users).set({ setPasswordMust: false });
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
const studyId = (await call('GET', '/api/business/study/list')).data.list[0].id as number;

// A 30-item form: numbers with ranges, choices and dates, as a typical visit form.
const children = Array.from({ length: ITEMS }, (_, i) => {
  const name = `v${i + 1}`;
  if (i % 5 === 0) {
    return { type: 'radio', name, title: `选项${i + 1}`, option: { optionsValue: '1,2,3', optionsText: '是,否,不详' } };
  }
  if (i % 5 === 1) return { type: 'date', name, title: `日期${i + 1}`, option: { showStyle: 'pastTime' } };
  return { type: 'real', name, title: `数值${i + 1}`, option: { validate: { min: 0, max: 1000 } } };
});
const uploaded = await call('POST', '/api/system/crf', {
  studyId,
  definition: { title: '导入压测表', option: {}, children },
});
if (uploaded.code !== 200) throw new Error(`CRF upload failed: ${uploaded.msg}`);

// Patients straight into the tables: enrolment is not what is measured.
const codes = Array.from({ length: ROWS }, (_, i) => `IMP${String(i + 1).padStart(6, '0')}`);
for (let i = 0; i < ROWS; i += 1_000) {
  const inserted = await database.db
    .insert(subjects)
    .values(
      codes.slice(i, i + 1_000).map((code) => ({
        studyId,
        identificationCode: code,
        subjectName: '压测',
        gender: 1,
        diseaseCode: 'LSS',
        qrCode: code,
      })),
    )
    .returning({ id: subjects.id });
  await database.db.insert(subjectRecords).values(inserted.map((s) => ({ studyId, subjectId: s.id })));
}


await app.close();
await database.close();
console.log('seeded', studyId);
