/**
 * A CRF save through the whole stack (HTTP, session, study membership, engine re-evaluation, optimistic
 * version, audit chain, outbox event) beside the same writes done directly, on the embedded default (PGlite
 * on disk, fsync on) and on PostgreSQL when one answers. Each figure is printed next to its goal (issue
 * "Performance"); the app and the raw writes alternate level by level in one run, so a busy machine slows both.
 *
 * - Throughput at 1, 16 and 64 clients, each client saving its own patient's form as a study nurse (a study
 *   member, not the administrator), and the raw writes: each client its own record, one transaction updating
 *   the record and writing the save's audit rows (one per changed item) with the study's chain head and the
 *   outbox event, through the same pool.
 * - Statements per save, counted at the driver: those a save's request makes (sequential saves, so nothing
 *   else runs), and those its after-commit reactions make (the outbox's subscribers).
 * - An open-loop load at half the highest measured rate: requests leave on a schedule whatever the answers
 *   do, and latency runs from the scheduled time (no coordinated omission).
 *
 * The timed saves leave from a worker thread (save-load.ts), as a browser's would from elsewhere: the app's
 * event loop serves them and does not also pay for the HTTP client.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { wrapPglite, type Database } from '../packages/server/src/db/client.js';
import { hostSyncs, openDurablePglite } from '../packages/server/src/db/pglite-engine.js';
import { users } from '../packages/server/src/db/schema/index.js';
import { CRF_ACTIONS, crfKey } from '../packages/core/src/index.js';
import { BENCH_PASSWORD as PASSWORD, benchApp, onScratchPostgres } from './harness.js';
import { closedLoop, runSaves, saver, type Figures, type SaveTarget } from './save-load.js';

const LEVELS = (process.env.BENCH_LEVELS ?? '1,16,64').split(',').map(Number);
/** `pglite` or `postgres` runs one of the two only. */
const ONLY = process.env.BENCH_ONLY;
const SAVES_PER_LEVEL = Number(process.env.BENCH_SAVES ?? 640);
const OPEN_LOOP_SECONDS = Number(process.env.BENCH_OPEN_SECONDS ?? 10);

/**
 * BENCH_FSYNC_MS makes each of the embedded database's disk syncs last at least that long, as on a slower disk
 * than this machine's (a laptop's SSD takes 1–5 ms, a spinning disk 10 or more): the sync blocks the process, as
 * the real one does.
 */
const FSYNC_MS = Number(process.env.BENCH_FSYNC_MS ?? 0);
if (FSYNC_MS > 0) {
  const fsyncSync = fs.fsyncSync;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  fs.fsyncSync = (fd: number) => {
    const started = performance.now();
    fsyncSync(fd);
    const left = FSYNC_MS - (performance.now() - started);
    if (left > 0) Atomics.wait(pause, 0, 0, left);
  };
}

/** Statements sent through the drivers, counted where they leave the process. */
const statements = { count: 0, trace: null as string[] | null };
const traced = (text: unknown) => {
  const sqlText = typeof text === 'string' ? text : (text as { text?: string } | null)?.text;
  statements.trace?.push(String(sqlText).replace(/\s+/g, ' ').slice(0, 140));
};
const pgQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements.count++;
  traced(args[0]);
  return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

/**
 * PGlite has no client class to hook: its protocol calls are counted instead, one statement per Sync (each query,
 * each BEGIN and COMMIT, and a named statement's bind and execute end in one), traced by the text a Parse or simple
 * Query carries, or the name a Bind gives.
 */
function countPglite(client: PGlite): PGlite {
  const stream = client.execProtocolStream.bind(client);
  const cstrings = (message: Uint8Array, count: number) => {
    const out: string[] = [];
    let at = 5;
    for (let i = 0; i < count; i++) {
      const end = message.indexOf(0, at);
      out.push(Buffer.from(message.subarray(at, end)).toString('utf8'));
      at = end + 1;
    }
    return out;
  };
  client.execProtocolStream = ((message: Uint8Array, options?: Parameters<PGlite['execProtocolStream']>[1]) => {
    const kind = String.fromCharCode(message[0]!);
    if (kind === 'S') statements.count++;
    if (statements.trace) {
      if (kind === 'Q') traced(cstrings(message, 1)[0]);
      if (kind === 'P') traced(cstrings(message, 2)[1]);
      const [, named] = kind === 'B' ? cstrings(message, 2) : [];
      if (named) traced(`(named statement ${named})`);
    }
    return stream(message, options);
  }) as PGlite['execProtocolStream'];
  return client;
}

const show = (f: Figures) =>
  `${f.rate.toFixed(0).padStart(5)} saves/s  p50 ${f.p50.toFixed(1).padStart(5)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

export interface SaveRun {
  kind: string;
  app: Map<number, Figures>;
  raw: Map<number, Figures>;
}

async function run(kind: string, database: Database): Promise<SaveRun> {
  const { app, events } = await benchApp(database);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const call = async (token: string | null, method: string, url: string, body?: unknown) => {
    const res = await fetch(base + url, {
      method,
      headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await res.json()) as { code: number; msg: string; data: any };
    if (envelope.code !== 200) throw new Error(`${method} ${url}: ${envelope.code} ${envelope.msg}`);
    return envelope.data;
  };
  const login = (username: string) => call(null, 'POST', '/api/ignore/sys/login', { username, password: PASSWORD });
  const admin = (await login('13800000000')).token as string;
  const studyId = (await call(admin, 'GET', '/api/business/study/list')).list[0].id as number;
  const crfId = (await call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).find(
    (c: { title: string }) => c.title === '生命体征',
  ).id as number;

  // A study nurse: a member whose study role may save this form, nothing more.
  const nurse = await call(admin, 'POST', '/api/system/user', {
    userName: '13900000001',
    password: PASSWORD,
    name: '压测护士',
    deptId: 1,
    roleIds: [1],
  });
  const studyRole = await call(admin, 'POST', '/api/system/studyRole', {
    studyId,
    roleName: '压测录入',
    permissions: CRF_ACTIONS.map(([action]) => crfKey(crfId, action)),
  });
  await call(admin, 'POST', '/api/business/study_personnel', {
    studyId,
    userIds: [nurse.userId],
    studyRoleId: studyRole.id,
  });
  await database.db.update(users).set({ setPasswordMust: false });
  const token = (await login('13900000001')).token as string;

  const patients = async (count: number, tag: string) => {
    const out: SaveTarget[] = [];
    for (let i = 0; i < count; i++) {
      const subject = await call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: `压测${tag}-${i}`,
        gender: 1,
        diseaseCode: 'LSS',
      });
      out.push({ subjectRecordId: subject.subjectRecordId, version: 0 });
    }
    return out;
  };
  // Sequential and setup saves from here; the timed loops send theirs from a worker thread (save-load.ts).
  const save = saver(base, token, crfId, `main${process.pid}`);
  const settle = () => events.drain();

  // Statements per save: sequential, after a first save has created the record and warmed the caches.
  const [counted] = await patients(1, 'count');
  await save(counted!);
  await save(counted!);
  await settle();
  // The dispatcher waits meanwhile, so that its deliveries are counted apart, as the reactions.
  const SEQUENTIAL = 50;
  for (let i = 0; i < 200; i++) await save(counted!); // warm-up for the CPU figure
  await settle();
  await events.stop();
  const before = statements.count;
  const syncsBefore = hostSyncs.count;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < SEQUENTIAL; i++) await save(counted!);
  const cpu = process.cpuUsage(cpuBefore);
  const inRequest = (statements.count - before) / SEQUENTIAL;
  const syncsInRequest = (hostSyncs.count - syncsBefore) / SEQUENTIAL;
  // Whole process (the server, its HTTP client here, garbage collection), so an upper bound of the app's own.
  const cpuPerSave = (cpu.user + cpu.system) / 1000 / SEQUENTIAL;
  if (process.env.BENCH_TRACE) {
    statements.trace = [];
    await save(counted!);
    console.log(`  one save's statements:\n    ${statements.trace.join('\n    ')}`);
    statements.trace = null;
  }
  const beforeReactions = statements.count;
  const syncsBeforeReactions = hostSyncs.count;
  await events.start(app.log.child({ module: 'events' }));
  await settle();
  const reactions = (statements.count - beforeReactions) / SEQUENTIAL;
  const syncsInReactions = (hostSyncs.count - syncsBeforeReactions) / SEQUENTIAL;
  if (process.env.BENCH_TRACE) {
    await save(counted!);
    statements.trace = [];
    await settle();
    console.log(`  one save's reactions (and the drain's own look-ups):\n    ${statements.trace.join('\n    ')}`);
    statements.trace = null;
  }

  // The raw writes: what a save must write, straight through the same pool.
  const rawRow = async () => {
    const [row] = (
      (await database.db
        .execute(sql`insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, version, values, single_form, created_by, updated_by)
          select ${studyId}, id, ${crfId}, 1, 1, 1, '{}'::jsonb, false, 1, 1 from subject_records where study_id = ${studyId} limit 1
          returning id`)) as unknown as { rows: Array<{ id: number }> }
    ).rows;
    return row!.id;
  };
  const rawSave = async (id: number, n: number) => {
    await database.db.transaction(async (tx) => {
      await tx.execute(
        sql`update crf_data_records set values = ${JSON.stringify({ sbp: String(100 + (n % 60)), dbp: '80', hr: String(50 + (n % 50)) })}::jsonb,
            version = version + 1, updated_at = now() where id = ${id}`,
      );
      await tx.execute(
        sql`insert into outbox_events (study_id, type, payload) values (${studyId}, 'record.saved', '{}'::jsonb)`,
      );
      const head = (
        (await tx.execute(
          sql`update audit_chain_heads set row_count = row_count + 2 where study_id = ${studyId} returning hash`,
        )) as unknown as { rows: Array<{ hash: string | null }> }
      ).rows[0];
      await tx.execute(sql`insert into audit_events (study_id, crf_data_record_id, action, item_name, old_value, new_value, user_id, user_name, prev_hash, hash)
        values (${studyId}, ${id}, 'item.update', 'sbp', '"120"'::jsonb, '"121"'::jsonb, 1, 'bench', ${head?.hash ?? null}, 'x'),
               (${studyId}, ${id}, 'item.update', 'hr', '"70"'::jsonb, '"71"'::jsonb, 1, 'bench', 'x', 'x')`);
    });
  };

  const result: SaveRun = { kind, app: new Map(), raw: new Map() };
  console.log(`${kind}`);
  for (const clients of LEVELS) {
    const records = await patients(clients, String(clients));
    for (const r of records) await save(r); // the form's first save creates it
    await settle();
    const appFigures = (
      await runSaves({ base, token, crfId, records, plan: { mode: 'closed', clients, total: SAVES_PER_LEVEL } })
    ).figures;
    await settle();
    const rows = await Promise.all(Array.from({ length: clients }, rawRow));
    const rawFigures = await closedLoop(clients, SAVES_PER_LEVEL, (c, n) => rawSave(rows[c]!, n));
    result.app.set(clients, appFigures);
    result.raw.set(clients, rawFigures);
    const ratio = appFigures.rate / rawFigures.rate;
    console.log(`  ${String(clients).padStart(2)} client(s)  app ${show(appFigures)}`);
    console.log(
      `              raw ${show(rawFigures)}   app/raw ${ratio.toFixed(2)}${clients > 1 ? ` (goal ≥ 0.5: ${verdict(ratio >= 0.5)})` : ''}`,
    );
  }
  console.log(
    `  statements per save: ${inRequest.toFixed(2)} in the request (goal ≤ 6: ${verdict(inRequest < 6.05)}; a fraction above 6 is the job queue's own polling in the window), ${reactions.toFixed(2)} after commit (reactions)`,
  );
  // Only the embedded database's syncs are seen here (PostgreSQL syncs in its own processes).
  if (syncsInRequest + syncsInReactions > 0) {
    console.log(
      `  disk syncs per save: ${syncsInRequest.toFixed(2)} in the request, ${syncsInReactions.toFixed(2)} after commit (reactions)`,
    );
  }
  console.log(
    `  process CPU per sequential save, before its reactions: ${cpuPerSave.toFixed(2)} ms (server and its HTTP client)`,
  );

  // Open loop at half the highest rate measured above.
  // BENCH_OPEN_RATE fixes the offered rate, to compare two builds at the same load.
  const rate = Number(process.env.BENCH_OPEN_RATE) || Math.max(...[...result.app.values()].map((f) => f.rate)) / 2;
  const records = await patients(128, 'open');
  for (const r of records) await save(r);
  await settle();
  const syncsBeforeOpen = hostSyncs.count;
  const { figures: open, dropped } = await runSaves({
    base,
    token,
    crfId,
    records,
    plan: { mode: 'open', rate, seconds: OPEN_LOOP_SECONDS },
  });
  console.log(
    `  open loop at ${rate.toFixed(0)} saves/s offered: p50 ${open.p50.toFixed(1)} ms  p99 ${open.p99.toFixed(1)} ms (goal < 50: ${verdict(open.p99 < 50)})${dropped ? `, ${dropped} not sent (all 128 patients busy)` : ''}`,
  );
  const openSyncs = hostSyncs.count - syncsBeforeOpen;
  if (openSyncs > 0) {
    console.log(
      `  disk syncs in the open loop, reactions included: ${(openSyncs / (rate * OPEN_LOOP_SECONDS)).toFixed(2)} per save`,
    );
  }
  await app.close();
  await database.close();
  return result;
}

const dir = path.join(os.tmpdir(), `edc-bench-save-${process.pid}`);
fs.rmSync(dir, { recursive: true, force: true });
const embedded =
  ONLY === 'postgres'
    ? null
    : await run('PGlite (embedded default: on disk, fsync on)', wrapPglite(countPglite(await openDurablePglite(dir))));
fs.rmSync(dir, { recursive: true, force: true });
const server =
  ONLY === 'pglite'
    ? null
    : await onScratchPostgres('edc_bench', (database, host) => run(`PostgreSQL (${host})`, database));
const embeddedOne = embedded?.app.get(1);
const serverOne = server?.app.get(1);
if (embeddedOne && serverOne) {
  const ratio = embeddedOne.rate / serverOne.rate;
  console.log(`embedded/PostgreSQL at 1 client: ${ratio.toFixed(2)} (goal ≥ 0.7: ${verdict(ratio >= 0.7)})`);
}
