/**
 * What the server benches share: the app built as `main.ts` builds it (on a database the bench chose), and a
 * scratch PostgreSQL database of the bench's own name when a server answers.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../packages/server/src/app.js';
import { loadConfig } from '../packages/server/src/config.js';
import { wrapPglite, wrapPostgres, type Database } from '../packages/server/src/db/client.js';
import { openDurablePglite } from '../packages/server/src/db/pglite-engine.js';
import { seedDemoStudy } from '../packages/server/src/db/demo-study.js';
import { users } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { createTokenService } from '../packages/server/src/modules/auth/token.service.js';
import { createOutbox } from '../packages/server/src/modules/events/outbox.js';
import { createJobQueue } from '../packages/server/src/modules/jobs/create-job-queue.js';
import { createRealtime } from '../packages/server/src/modules/realtime/realtime.hub.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';
import { localFileStorage } from '../packages/server/src/shared/file-storage.js';
import { memoryStore } from '../packages/server/src/shared/kv.js';

export const BENCH_PASSWORD = 'Bench@123';
export const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Migrates and seeds `database` (the demo study, the administrator with BENCH_PASSWORD) and builds the app on it. */
export async function benchApp(database: Database, dataDir?: string) {
  await database.migrate();
  await seed(database.db, { adminPassword: BENCH_PASSWORD, version: 'bench' });
  await seedDemoStudy(database.db);
  await database.db.update(users).set({ setPasswordMust: false });
  return buildBenchApp(database, dataDir);
}

/** The app as `main.ts` builds it, on `database` as it stands (no migration, no seed), its files under `dataDir`. */
export async function buildBenchApp(database: Database, dataDir = '/tmp/edc-bench') {
  const clock = () => new Date();
  const config = {
    ...loadConfig({ EDC_CAPTCHA: 'off', DATA_DIR: dataDir }),
    loginRateLimitPerMinute: 1_000_000,
  };
  const files = localFileStorage(config.dataDir);
  const events = createOutbox({ db: database.db, listen: database.listen });
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
    events,
  });
  return { app, events };
}

export async function postgresAnswers(url = PG_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 5432), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Runs `work` on a fresh database `name` on the PostgreSQL server of PG_URL, dropped afterwards; null when none answers. */
export async function onScratchPostgres<T>(name: string, work: (database: Database, host: string) => Promise<T>) {
  if (!(await postgresAnswers())) {
    console.log('PostgreSQL: not reachable, skipped');
    return null;
  }
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  try {
    return await work(wrapPostgres(url.toString()), url.host);
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

export type BenchAnswer = { code: number; msg: string; data: any };

/**
 * The app listening on a port of its own, signed in as the administrator: on PGlite on disk (fsync on) under a
 * scratch directory, or, with BENCH_DATABASE_URL, in a PostgreSQL database of its own (`edc_bench_<name>_<pid>`,
 * dropped by `close`).
 */
export async function benchServer(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `edc-bench-${name}-`));
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const benchDb = `edc_bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  let databaseUrl: URL | undefined;
  if (serverUrl) {
    await admin(`CREATE DATABASE ${benchDb}`);
    databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${benchDb}`;
  }
  const database = databaseUrl
    ? wrapPostgres(databaseUrl.toString())
    : wrapPglite(await openDurablePglite(path.join(dir, 'db')));
  const { app } = await benchApp(database, dir);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  const login = (await (
    await fetch(`${base}/api/ignore/sys/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: '13800000000', password: BENCH_PASSWORD }),
    })
  ).json()) as { data: { token: string } };
  const token = login.data.token;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(base + url, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as BenchAnswer;
  };
  const close = async () => {
    await app.close();
    await database.close();
    if (serverUrl) await admin(`DROP DATABASE ${benchDb}`);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { database, databaseUrl, base, token, call, close };
}
