/**
 * Reads as a study grows: the patient list's first page, the study home's figures and a search, at 1,000 and then
 * 10,000 patients (each with a 生命体征 record), through the whole stack as a study nurse. Prints p95 at both
 * sizes and their ratio next to the goal (≤ 1.2×: a page costs what the page shows, not what the study holds).
 * Runs on the embedded default and on PostgreSQL when one answers. Patients beyond the first are written by SQL
 * (the same rows the enrolment writes, without the identifiers) so that seeding takes seconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { wrapPglite, type Database } from '../packages/server/src/db/client.js';
import { openDurablePglite } from '../packages/server/src/db/pglite-engine.js';
import { NUMBER_TEXT_PATTERN } from '../packages/server/src/modules/search/search-sql.js';
import { BENCH_PASSWORD as PASSWORD, benchApp, onScratchPostgres } from './harness.js';

const SIZES = [1_000, 10_000];
const RUNS = Number(process.env.BENCH_RUNS ?? 60);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** RUNS timings of `work` after five warm-up calls, in ascending order. */
async function sampled(work: () => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await work();
    samples.push(performance.now() - t0);
  }
  return samples.sort((a, b) => a - b);
}

async function run(kind: string, database: Database) {
  const { app } = await benchApp(database);
  await app.ready();
  const call = async (token: string | null, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await app.inject({
      method,
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(payload && { payload }),
    });
    const body = res.json() as { code: number; msg: string; data: any };
    if (body.code !== 200) throw new Error(`${method} ${url}: ${body.code} ${body.msg}`);
    return body.data;
  };
  const token = (await call(null, 'POST', '/api/ignore/sys/login', { username: '13800000000', password: PASSWORD }))
    .token as string;
  const studyId = (await call(token, 'GET', '/api/business/study/list')).list[0].id as number;
  const crfId = (await call(token, 'GET', `/api/system/crf/list?studyId=${studyId}`)).find(
    (c: { title: string }) => c.title === '生命体征',
  ).id as number;

  // One patient through the API; the rest copied from it by SQL.
  const first = await call(token, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '读取甲',
    gender: 1,
    diseaseCode: 'LSS',
  });
  await call(token, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: first.subjectRecordId,
    crfId,
    version: 0,
    values: { sbp: 120, dbp: 80, hr: 70, temp: 36.5 },
  });
  let have = 1;
  const grow = async (to: number) => {
    await database.db.execute(sql`
      with made as (
        insert into subjects (study_id, identification_code, subject_name, gender, birth, disease_code, qr_code, dept_id,
          created_by, created_at, updated_at)
        select s.study_id, 'R' || lpad(g::text, 6, '0'), '读取' || g, g % 2, s.birth, s.disease_code, md5('qr' || g), s.dept_id,
          s.created_by, now() - make_interval(mins => ${to}::int - g), now()
        from subjects s, generate_series(${have + 1}::int, ${to}::int) g
        where s.id = (select subject_id from subject_records where id = ${first.subjectRecordId})
        returning id, study_id, created_by, created_at),
      records as (
        insert into subject_records (study_id, subject_id, state, created_by, created_at, updated_at)
        select study_id, id, 0, created_by, created_at, created_at from made
        returning id, study_id, created_by, created_at)
      insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, version, values, single_form,
        created_by, updated_by, created_at, updated_at)
      select r.study_id, r.id, d.crf_id, d.crf_version, d.state, 1,
        jsonb_set(d.values, '{sbp}', to_jsonb((100 + r.id % 60)::text)), true, r.created_by, r.created_by, r.created_at, r.created_at
      from records r, crf_data_records d where d.subject_record_id = ${first.subjectRecordId}`);
    have = to;
    // What autovacuum does on a server within a minute of such a growth, and db/maintenance.ts on the embedded
    // database. As the owner: the application role may not analyze on PostgreSQL 15 (it used to be skipped, and
    // the 1,000-patient figures were planned without statistics: the search took 0.9 s).
    await database.asOwner((owner) => owner.execute(sql`analyze`));
  };

  const reads: Array<[string, () => Promise<unknown>]> = [
    [
      'patient list, page 1',
      () => call(token, 'POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 }),
    ],
    ['study home figures', () => call(token, 'GET', `/api/business/index?studyId=${studyId}`)],
    [
      'search: 收缩压 > 139, page 1',
      () =>
        call(token, 'POST', '/api/business/search/v2', {
          studyId,
          conditions: {
            join: 'and',
            groups: [
              { join: 'and', conditions: [{ kind: 'item', crfId, itemName: 'sbp', operator: 'gt', values: ['139'] }] },
            ],
          },
          columns: [
            { kind: 'patient', field: 'identificationCode' },
            { kind: 'item', crfId, itemName: 'sbp' },
          ],
          pageNum: 1,
          pageSize: 10,
        }),
    ],
  ];
  // Where the search's time goes, in SQL alone: the conditions evaluated on every record (what the product does),
  // then a prototype of the typed index of item values (a table built here, not in the product) and the exact
  // count alone over that index. It shows whether such an index would keep the search flat as the study grows.
  const searchSql = async (size: number) => {
    for (const statement of [
      'drop table if exists bench_item_values',
      `create table bench_item_values as select r.study_id, r.crf_id, r.subject_record_id, e.key as item_name,
         case when e.value ~ '${NUMBER_TEXT_PATTERN}' then trim(e.value)::numeric end as num
         from crf_data_records r, jsonb_each_text(r.values) e where r.deleted_at is null`,
      'create index on bench_item_values (study_id, crf_id, item_name, num) include (subject_record_id)',
      'analyze bench_item_values',
      'grant select on bench_item_values to public',
    ]) {
      await database.asOwner((owner) => owner.execute(sql.raw(statement)));
    }
    const page = (matches: string) =>
      `select sr.id, count(*) over () from subject_records sr join subjects s on s.id = sr.subject_id
       where sr.study_id = ${studyId} and sr.deleted_at is null and sr.id in (${matches})
       order by s.created_at desc, s.id desc limit 10`;
    const scanned = `select r.subject_record_id from crf_data_records r where r.study_id = ${studyId}
      and r.crf_id = ${crfId} and r.deleted_at is null
      and (case when (r.values ->> 'sbp') ~ '${NUMBER_TEXT_PATTERN}' then trim(r.values ->> 'sbp')::numeric end) > 139`;
    const indexed = `select v.subject_record_id from bench_item_values v where v.study_id = ${studyId}
      and v.crf_id = ${crfId} and v.item_name = 'sbp' and v.num > 139`;
    for (const [name, text] of [
      ['scanned (as built)', page(scanned)],
      ['typed index (prototype)', page(indexed)],
      [
        'count alone, typed index',
        `select count(*) from subject_records sr where sr.study_id = ${studyId} and sr.deleted_at is null and sr.id in (${indexed})`,
      ],
    ]) {
      const samples = await sampled(() => database.db.execute(sql.raw(text!)));
      console.log(
        `  ${size}: search SQL, ${name}: p50 ${percentile(samples, 0.5).toFixed(2)} ms, p95 ${percentile(samples, 0.95).toFixed(2)} ms`,
      );
    }
  };
  const p95 = new Map<string, number[]>();
  for (const size of SIZES) {
    await grow(size);
    for (const [name, read] of reads) {
      const samples = await sampled(read);
      p95.set(name, [...(p95.get(name) ?? []), percentile(samples, 0.95)]);
      console.log(
        `  ${size}: ${name} p50 ${percentile(samples, 0.5).toFixed(1)} ms, p95 ${percentile(samples, 0.95).toFixed(1)} ms, max ${samples.at(-1)!.toFixed(1)} ms`,
      );
    }
    await searchSql(size);
  }
  console.log(kind);
  for (const [name, [small, large]] of p95) {
    const ratio = large! / small!;
    console.log(
      `  ${name.padEnd(30)} p95 ${small!.toFixed(1).padStart(6)} ms at 1,000   ${large!.toFixed(1).padStart(6)} ms at 10,000   ×${ratio.toFixed(2)} (goal ≤ 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'})`,
    );
  }
  await app.close();
  await database.close();
}

const dir = path.join(os.tmpdir(), `edc-bench-reads-${process.pid}`);
fs.rmSync(dir, { recursive: true, force: true });
if (process.env.BENCH_ONLY !== 'postgres') {
  await run('PGlite (embedded default: on disk, fsync on)', wrapPglite(await openDurablePglite(dir)));
  fs.rmSync(dir, { recursive: true, force: true });
}
if (process.env.BENCH_ONLY !== 'pglite') {
  await onScratchPostgres('edc_bench_reads', (database, host) => run(`PostgreSQL (${host})`, database));
}
