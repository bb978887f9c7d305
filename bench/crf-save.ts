/**
 * CRF save throughput and latency through the whole stack (HTTP, auth, isolation guard, engine
 * re-evaluation, optimistic version, audit rows) at 1, 16 and 64 concurrent clients, on embedded
 * PGlite and on PostgreSQL when one answers, beside the raw database doing the same writes
 * (record update + audit row in one transaction). Prints figures; no thresholds.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { buildApp } from '../packages/server/src/app.js';
import { createJobQueue } from '../packages/server/src/modules/jobs/create-job-queue.js';
import { loadConfig } from '../packages/server/src/config.js';
import { openDurablePglite, wrapPglite, wrapPostgres, type Database } from '../packages/server/src/db/client.js';
import { seedDemoStudy } from '../packages/server/src/db/demo-study.js';
import { users } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { createTokenService } from '../packages/server/src/modules/auth/token.service.js';
import { createRealtime } from '../packages/server/src/modules/realtime/realtime.hub.js';
import { createOutbox } from '../packages/server/src/modules/events/outbox.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';
import { localFileStorage } from '../packages/server/src/shared/file-storage.js';
import { memoryStore } from '../packages/server/src/shared/kv.js';

const LEVELS = [1, 16, 64];
const SAVES_PER_LEVEL = 320;
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const report = (label: string, samples: number[], seconds: number) => {
  const s = [...samples].sort((a, b) => a - b);
  console.log(
    `  ${label.padEnd(34)} ${(samples.length / seconds).toFixed(0).padStart(6)} saves/s   p50 ${percentile(s, 0.5).toFixed(1)} ms   p99 ${percentile(s, 0.99).toFixed(1)} ms`,
  );
};

async function run(kind: string, database: Database) {
  await database.migrate();
  await seed(database.db, { adminPassword: 'Bench@123', version: 'bench' });
  await seedDemoStudy(database.db);
  await database.db.update(users).set({ setPasswordMust: false });
  const clock = () => new Date();
  const config = {
    ...loadConfig({ EDC_CAPTCHA: 'off', DATA_DIR: '/tmp/edc-bench' }),
    loginRateLimitPerMinute: 1_000_000,
  };
  const app = await buildApp({
    config,
    db: database.db,
    kv: memoryStore(),
    tokens: createTokenService(new TextEncoder().encode('bench-secret-bench-secret-bench-secret'), 1800, clock),
    fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)),
    files: localFileStorage(config.dataDir),
    jobs: createJobQueue({ db: database.db, files: localFileStorage(config.dataDir), redisUrl: undefined, clock }),
    clock,
    realtime: createRealtime(),
    events: createOutbox({ db: database.db, listen: database.listen }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as { code: number; data: any };
  };
  const login = await (
    await fetch(`${base}/api/ignore/sys/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: '13800000000', password: 'Bench@123' }),
    })
  ).json();
  const token = login.data.token as string;
  const studyId = (await call(token, 'GET', '/api/business/study/list')).data.list[0].id as number;
  const crfId = (await call(token, 'GET', `/api/system/crf/list?studyId=${studyId}`)).data.find(
    (c: { title: string }) => c.title === '生命体征',
  ).id as number;

  console.log(`${kind}`);
  for (const clients of LEVELS) {
    const records: Array<{ subjectRecordId: number; crfDataRecordId?: number; version: number }> = [];
    for (let i = 0; i < clients; i++) {
      const subject = await call(token, 'POST', '/api/business/subject', {
        studyId,
        subjectName: `压测${clients}-${i}`,
        gender: 1,
        diseaseCode: 'LSS',
      });
      records.push({ subjectRecordId: subject.data.subjectRecordId, version: 0 });
    }
    const samples: number[] = [];
    let remaining = SAVES_PER_LEVEL;
    const started = performance.now();
    await Promise.all(
      records.map(async (record) => {
        while (remaining-- > 0) {
          const t0 = performance.now();
          const res = await call(token, 'PUT', '/api/v3/business/crf', {
            subjectRecordId: record.subjectRecordId,
            crfId,
            crfDataRecordId: record.crfDataRecordId,
            version: record.version,
            values: { sbp: 120 + (samples.length % 40), dbp: 80, hr: 60 + (samples.length % 30), temp: 36.5 },
          });
          if (res.code !== 200) throw new Error(JSON.stringify(res));
          record.crfDataRecordId = res.data.crfDataRecordId;
          record.version = res.data.version;
          samples.push(performance.now() - t0);
        }
      }),
    );
    report(`API save, ${clients} client(s)`, samples, (performance.now() - started) / 1000);
  }
  await app.close();

  // The same writes straight to the database: the ceiling the API stands against.
  const [{ id }] = (
    (await database.db.execute(sql`select id from crf_data_records limit 1`)) as unknown as {
      rows: Array<{ id: number }>;
    }
  ).rows;
  for (const clients of LEVELS) {
    const samples: number[] = [];
    let remaining = SAVES_PER_LEVEL;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (remaining-- > 0) {
          const t0 = performance.now();
          await database.db.transaction(async (tx) => {
            await tx.execute(
              sql`update crf_data_records set values = ${JSON.stringify({ sbp: '121', hr: '70' })}::jsonb, version = version + 1 where id = ${id}`,
            );
            await tx.execute(sql`insert into audit_events (study_id, crf_data_record_id, action, item_name, old_value, new_value, user_id, user_name)
              values (1, ${id}, 'item.update', 'sbp', '"120"'::jsonb, '"121"'::jsonb, 1, 'bench')`);
          });
          samples.push(performance.now() - t0);
        }
      }),
    );
    report(`raw DB write, ${clients} client(s)`, samples, (performance.now() - started) / 1000);
  }
  await database.close();
}

async function postgresAnswers(): Promise<boolean> {
  const url = new URL(PG_URL);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 5432), url.hostname);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

await run('PGlite (embedded, in memory)', wrapPglite(await PGlite.create()));
// What a deployment runs: on disk, fsync on (the default since durability became required), and the old fsync-off setting for comparison.
const diskDir = (name: string) => {
  const dir = path.join(os.tmpdir(), `edc-bench-${name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  return dir;
};
await run('PGlite (on disk, fsync on: default)', wrapPglite(await openDurablePglite(diskDir('durable'))));
await run('PGlite (on disk, fsync off: before)', wrapPglite(await PGlite.create(diskDir('fast'))));
if (await postgresAnswers()) {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query('drop database if exists edc_bench with (force)');
  await admin.query('create database edc_bench');
  const url = new URL(PG_URL);
  url.pathname = '/edc_bench';
  await run(`PostgreSQL (${url.host})`, wrapPostgres(url.toString()));
  await admin.query('drop database if exists edc_bench with (force)');
  await admin.end();
} else {
  console.log('PostgreSQL: not reachable, skipped');
}
