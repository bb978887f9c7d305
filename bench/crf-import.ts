/**
 * CRF upload cost and its effect on everyone else: import time and the process's peak memory for a 500-field
 * REDCap dictionary, a 100-form workbook and a maximal CSV (at the item cap, ~19 MB), and the latency of other
 * requests (a CRF list page, 4 clients in a loop) while each upload is read and stored, beside the same
 * requests with no upload running. Embedded PGlite, and PostgreSQL when one answers. Prints figures; no
 * thresholds.
 */
import type net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { CrfDefinition } from '@ecrf/core';
import { exportExcel } from '@ecrf/core/interop';
import { buildApp } from '../packages/server/src/app.js';
import { createJobQueue } from '../packages/server/src/modules/jobs/create-job-queue.js';
import { loadConfig } from '../packages/server/src/config.js';
import { wrapPglite, wrapPostgres, type Database } from '../packages/server/src/db/client.js';
import { users } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { createTokenService } from '../packages/server/src/modules/auth/token.service.js';
import { createRealtime } from '../packages/server/src/modules/realtime/realtime.hub.js';
import { createOutbox } from '../packages/server/src/modules/events/outbox.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';
import { localFileStorage } from '../packages/server/src/shared/file-storage.js';
import { memoryStore } from '../packages/server/src/shared/kv.js';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CLIENTS = 4;

const REDCAP_HEADER =
  '"Variable / Field Name","Form Name","Section Header","Field Type","Field Label","Choices, Calculations, OR Slider Labels","Field Note","Text Validation Type OR Show Slider Number","Text Validation Min","Text Validation Max","Identifier?","Branching Logic (Show field only if...)","Required Field?","Custom Alignment","Question Number (surveys only)","Matrix Group Name","Matrix Ranking?","Field Annotation"';
const row = (...cells: string[]) =>
  [...cells, ...Array(18 - cells.length).fill('')].map((c) => `"${c.replace(/"/g, '""')}"`).join(',');

/** A dictionary like a real clinical one: choices, validated numbers and dates, branching on earlier fields. */
function dictionary(fields: number, forms: number, labelPad = 0): string {
  const lines = [REDCAP_HEADER];
  const perForm = Math.ceil(fields / forms);
  for (let i = 0; i < fields; i++) {
    const form = `form_${Math.floor(i / perForm)}`;
    const first = i % perForm === 0;
    const label = `题目 ${i}${'说明'.repeat(labelPad)}`;
    const branch = !first && i % 5 === 0 ? `[f${i - 1}] = '1' or [f${i - 1}] > 3` : '';
    switch (i % 4) {
      case 0:
        lines.push(row(`f${i}`, form, '', 'radio', label, '1, 是 | 2, 否 | 3, 不详', '', '', '', '', '', branch));
        break;
      case 1:
        lines.push(row(`f${i}`, form, '', 'text', label, '', '', 'integer', '0', '300', '', branch));
        break;
      case 2:
        lines.push(row(`f${i}`, form, '', 'text', label, '', '', 'date_ymd', '1900-01-01', 'today', '', branch));
        break;
      default:
        lines.push(row(`f${i}`, form, '', 'notes', label, '', '', '', '', '', '', branch));
    }
  }
  return lines.join('\n');
}

function workbookForms(forms: number, items: number): CrfDefinition[] {
  return Array.from({ length: forms }, (_, f) => ({
    title: `表单${f}`,
    option: {},
    children: Array.from({ length: items }, (_, i) => ({
      name: `q${i}`,
      title: `题目${i}`,
      type: i % 3 === 0 ? 'radio' : i % 3 === 1 ? 'int' : 'input',
      option: i % 3 === 0 ? { optionsValue: '1,2', optionsText: '是,否' } : i % 3 === 1 ? { validate: { min: 0 } } : {},
      children: [],
    })),
  })) as CrfDefinition[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const summary = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(1)} ms  p99 ${percentile(s, 0.99).toFixed(1)} ms  max ${s.at(-1)!.toFixed(1)} ms  (n=${s.length})`;
};
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function run(kind: string, database: Database) {
  await database.migrate();
  await seed(database.db, { adminPassword: 'Bench@123', version: 'bench' });
  await database.db.update(users).set({ setPasswordMust: false });
  const clock = () => new Date();
  const app = await buildApp({
    config: { ...loadConfig({ EDC_CAPTCHA: 'off', DATA_DIR: '/tmp/edc-bench' }), loginRateLimitPerMinute: 1_000_000 },
    db: database.db,
    kv: memoryStore(),
    tokens: createTokenService(new TextEncoder().encode('bench-secret-bench-secret-bench-secret'), 1800, clock),
    fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)),
    files: localFileStorage('/tmp/edc-bench'),
    jobs: createJobQueue({ db: database.db, files: localFileStorage('/tmp/edc-bench'), redisUrl: undefined, clock }),
    clock,
    realtime: createRealtime(),
    events: createOutbox({ db: database.db, listen: database.listen }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  const token = (
    (await (
      await fetch(`${base}/api/ignore/sys/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: '13800000000', password: 'Bench@123' }),
      })
    ).json()) as { data: { token: string } }
  ).data.token;
  const headers = { authorization: `Bearer ${token}` };
  let studies = 0;
  const newStudy = async () => {
    studies += 1;
    const res = await fetch(`${base}/api/business/study`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ studyName: `基准${studies}`, studyCode: `B${studies}`, diseases: [] }),
    });
    return ((await res.json()) as { data: { id: number } }).data.id;
  };
  const listStudy = await newStudy();

  /** Other users' requests, in a loop, until `until` settles. */
  const others = async (until: Promise<unknown>) => {
    let done = false;
    void until.finally(() => (done = true));
    const samples: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (!done) {
          const start = performance.now();
          const res = await fetch(`${base}/api/system/crfs?studyId=${listStudy}&pageNum=1&pageSize=10`, { headers });
          await res.arrayBuffer();
          samples.push(performance.now() - start);
        }
      }),
    );
    return samples;
  };

  const idle = new Promise((resolve) => setTimeout(resolve, 3000));
  console.log(`${kind}`);
  console.log(`  other requests, no upload running      ${summary(await others(idle))}`);

  const scenarios: Array<{ label: string; fileName: string; data: Buffer }> = [
    { label: '500-field REDCap dictionary', fileName: 'dictionary.csv', data: Buffer.from(dictionary(500, 20)) },
    {
      label: '100-form workbook (30 items each)',
      fileName: 'forms.xlsx',
      data: Buffer.from(await exportExcel(workbookForms(100, 30))),
    },
    {
      label: 'maximal CSV (19,990 fields, 10 forms)',
      fileName: 'max.csv',
      data: Buffer.from(dictionary(19_990, 10, 140)),
    },
  ];
  for (const scenario of scenarios) {
    const studyId = await newStudy();
    const form = new FormData();
    form.append('studyId', String(studyId));
    form.append('file', new Blob([new Uint8Array(scenario.data)]), scenario.fileName);
    const rssBefore = peakRssMb();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const start = performance.now();
    const upload = fetch(`${base}/api/system/crf`, { method: 'POST', headers, body: form }).then(async (res) => {
      const body = (await res.json()) as { code: number; msg: string; data: { crfs?: unknown[] } };
      if (body.code !== 200) throw new Error(`${scenario.label}: ${body.msg}`);
      return { ms: performance.now() - start, forms: body.data.crfs?.length ?? 0 };
    });
    const during = await others(upload);
    const { ms, forms } = await upload;
    loop.disable();
    console.log(
      `  ${scenario.label.padEnd(38)} ${(scenario.data.length / 1024 / 1024).toFixed(1).padStart(5)} MB  ${forms} forms in ${(ms / 1000).toFixed(2)} s  peak RSS ${peakRssMb().toFixed(0)} MB (+${(peakRssMb() - rssBefore).toFixed(0)})`,
    );
    console.log(
      `    other requests meanwhile             ${summary(during)}  event loop delay max ${(loop.max / 1e6).toFixed(0)} ms`,
    );
  }
  await app.close();
  await app.flushOperLogs();
  await database.close();
}

await run('embedded PGlite (in memory)', wrapPglite(await PGlite.create()));

const admin = new pg.Client({ connectionString: PG_URL });
try {
  await admin.connect();
  const name = `edc_bench_import_${process.pid}`;
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    await run('PostgreSQL', wrapPostgres(url.toString()));
  } finally {
    await admin.query(`drop database ${name} with (force)`);
  }
} catch (error) {
  console.log(`PostgreSQL: skipped (${(error as Error).message})`);
} finally {
  await admin.end().catch(() => undefined);
}
