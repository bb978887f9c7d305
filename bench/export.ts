/**
 * Data export: the CSV long export of 100,000 and 1,000,000 item values (one study, one form of 100 number items,
 * 1,000 and 10,000 patients) through the export job's own code (plan, keyset batches, streamed writer, SHA-256,
 * result file), timed beside PostgreSQL's own `COPY (SELECT …) TO STDOUT` of the same rows (one per value, in
 * the same order), with the process's peak RSS and heap above what it held before each export.
 * Runs on PostgreSQL when DATABASE_URL or TEST_DATABASE_URL is set (in a scratch database `edc_bench_export`),
 * on embedded PGlite (in memory) otherwise, and says which. Prints figures; no thresholds.
 */
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { sql } from 'drizzle-orm';
import { wrapPglite, wrapPostgres, type Database } from '../packages/server/src/db/client.js';
import { seedDemoStudy } from '../packages/server/src/db/demo-study.js';
import { crfs, crfVersions, studies } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import type { AppContext } from '../packages/server/src/app-context.js';
import { runExport, type ExportJobPayload } from '../packages/server/src/modules/export/export.service.js';
import type { JobInfo, JobTools } from '../packages/server/src/modules/jobs/job-queue.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';

const ITEMS = 100;
const SIZES = [1_000, 10_000]; // patients: × 100 items = 100k and 1M values
const SCRATCH = 'edc_bench_export';

const url = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** Counts what a stream carries and drops it. */
function counter() {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done();
    },
  });
  return { sink, bytes: () => bytes };
}

function memorySampler() {
  const start = process.memoryUsage();
  let rss = start.rss;
  let heap = start.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 10);
  return () => {
    clearInterval(timer);
    return { rssStart: start.rss, rssPeak: rss, heapStart: start.heapUsed, heapPeak: heap };
  };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

async function addPatients(database: Database, studyId: number, crfId: number, from: number, to: number) {
  const db = database.db;
  await db.execute(sql`
    insert into subjects (study_id, identification_code, subject_name, gender, disease_code, qr_code)
    select ${studyId}, 'B' || lpad(n::text, 6, '0'), '基准' || n, n % 2, 'LSS', md5(n::text)
    from generate_series(${from}::int, ${to}::int) n`);
  await db.execute(sql`
    insert into subject_records (study_id, subject_id)
    select ${studyId}, s.id from subjects s
    where s.study_id = ${studyId} and s.identification_code between ${`B${String(from).padStart(6, '0')}`} and ${`B${String(to).padStart(6, '0')}`}`);
  await db.execute(sql`
    insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, values, single_form)
    select ${studyId}, sr.id, ${crfId}, 1, 2,
      (select jsonb_object_agg('i' || k, (sr.id * 7 + k) % 1000) from generate_series(1, ${ITEMS}) k), true
    from subject_records sr join subjects s on s.id = sr.subject_id
    where sr.study_id = ${studyId} and s.identification_code between ${`B${String(from).padStart(6, '0')}`} and ${`B${String(to).padStart(6, '0')}`}`);
}

/** The rows of the CSV long export, by the database: one per value, in key order. */
const copySql = (studyId: number, crfId: number) => `
  COPY (
    SELECT s.identification_code, '', r.crf_id, c.title, 1, r.state, kv.key, kv.key, '', kv.value
    FROM crf_data_records r
    JOIN subject_records sr ON sr.id = r.subject_record_id
    JOIN subjects s ON s.id = sr.subject_id
    JOIN crfs c ON c.id = r.crf_id
    CROSS JOIN LATERAL jsonb_each_text(r.values) kv
    WHERE r.study_id = ${studyId} AND r.crf_id = ${crfId} AND r.deleted_at IS NULL
    ORDER BY sr.id, r.crf_id, r.id
  ) TO STDOUT WITH (FORMAT csv)`;

async function main() {
  let database: Database;
  let copy: (text: string) => Promise<number>;
  let close: () => Promise<void>;
  let label: string;
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop database if exists ${SCRATCH} with (force)`);
    await admin.query(`create database ${SCRATCH}`);
    const scratch = new URL(url);
    scratch.pathname = `/${SCRATCH}`;
    database = wrapPostgres(scratch.toString());
    const copyClient = new pg.Client({ connectionString: scratch.toString() });
    await copyClient.connect();
    copy = async (text) => {
      const c = counter();
      await pipeline(copyClient.query(copyTo(text)), c.sink);
      return c.bytes();
    };
    close = async () => {
      await copyClient.end();
      await database.close();
      await admin.query(`drop database if exists ${SCRATCH} with (force)`);
      await admin.end();
    };
    label = `PostgreSQL (${scratch.host})`;
  } else {
    const client = await PGlite.create();
    database = wrapPglite(client);
    copy = async (text) => {
      // COPY to PGlite's blob needs the superuser the application role has dropped; taken back for the COPY only.
      await client.query('reset role');
      try {
        const result = await client.query(text.replace('TO STDOUT', "TO '/dev/blob'"));
        return result.blob?.size ?? 0;
      } finally {
        await client.query(`select set_config('role', 'edc_app', false)`);
      }
    };
    close = () => database.close();
    label = 'PGlite (embedded, in memory)';
  }
  console.log(`Export benchmark on ${label}: CSV long, ${ITEMS} number items per patient`);
  await database.migrate();
  await seed(database.db, { adminPassword: 'Bench@123', version: 'bench' });
  await seedDemoStudy(database.db);
  const [study] = await database.db.select({ studyId: studies.studyId }).from(studies);
  const studyId = study!.studyId;
  const definition = {
    title: '基准表单',
    option: {},
    children: Array.from({ length: ITEMS }, (_, i) => ({
      id: `i${i + 1}`,
      name: `i${i + 1}`,
      type: 'int',
      title: `变量${i + 1}`,
      option: {},
      children: [],
    })),
  };
  const [crf] = await database.db.insert(crfs).values({ studyId, title: '基准表单' }).returning({ id: crfs.id });
  const crfId = crf!.id;
  await database.db.insert(crfVersions).values({
    crfId,
    studyId,
    version: 1,
    definition: { ...definition, id: crfId },
    source: 'json',
    itemCount: ITEMS,
  });

  const ctx = { db: database.db, clock: () => new Date(), fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)) };
  const access = {
    studyId,
    member: true,
    studyRoleId: null,
    permissions: [],
    all: true,
    timeZone: 'Asia/Shanghai',
    siteIds: null,
    ownSiteIds: [],
  };
  let patients = 0;
  for (const size of SIZES) {
    await addPatients(database, studyId, crfId, patients + 1, size);
    patients = size;
    await database.db.execute(sql`analyze`);
    const values = patients * ITEMS;

    // The database's own COPY of the same rows (run twice; the second, warm figure is used).
    await copy(copySql(studyId, crfId));
    let t0 = performance.now();
    const copyBytes = await copy(copySql(studyId, crfId));
    const copyMs = performance.now() - t0;

    const payload: ExportJobPayload = {
      studyId,
      api: 'v3',
      options: {
        format: 'csvLong',
        crfIds: [crfId],
        stageIds: [],
        states: ['saved', 'submitted'],
        labels: false,
        identifiers: false,
        dateShiftDays: null,
      },
      scope: { kind: 'study' },
      chosenBy: 'study',
      userName: 'bench',
      systemPermissions: ['*:*:*'],
    };
    let fileBytes = 0;
    const job: JobInfo<ExportJobPayload> = {
      jobId: crypto.randomUUID(),
      kind: 'data.export',
      payload,
      ownerId: 1,
      studyId,
      attempt: 1,
    };
    const tools: JobTools = {
      progress: async () => undefined,
      signal: new AbortController().signal,
      saveResultFile: async (file) => {
        const c = counter();
        if (Buffer.isBuffer(file.data)) fileBytes = file.data.length;
        else {
          await pipeline(file.data, c.sink);
          fileBytes = c.bytes();
        }
      },
    };
    // A first run warms the code paths up (JIT, definitions cache), as the first COPY warms the database's.
    await runExport(ctx as unknown as AppContext, { ...job, jobId: crypto.randomUUID() }, tools, async () => access);
    global.gc?.();
    const stop = memorySampler();
    t0 = performance.now();
    const result = (await runExport(ctx as unknown as AppContext, job, tools, async () => access)) as {
      rows: number;
    };
    const exportMs = performance.now() - t0;
    const mem = stop();
    const rows = result.rows;
    console.log(
      `  ${values.toLocaleString('en').padStart(9)} values: export ${(exportMs / 1000).toFixed(2)} s (${rows.toLocaleString('en')} rows, ${mb(fileBytes)}), ` +
        `COPY ${(copyMs / 1000).toFixed(2)} s (${mb(copyBytes)}), ratio ${(exportMs / copyMs).toFixed(2)}×; ` +
        `peak RSS +${mb(mem.rssPeak - mem.rssStart)} (${mb(mem.rssPeak)}), peak heap +${mb(mem.heapPeak - mem.heapStart)}`,
    );
  }
  await close();
}

await main();
