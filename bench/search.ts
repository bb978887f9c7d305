/**
 * Data retrieval (POST /api/business/search/v2) on a study of 10,000 patients × 50 forms (the last 5
 * repeatable, two records each: about 505,000 form records), through the whole stack (auth, study guard,
 * dictionary, compiled SQL, count and one page with three columns). Typical searches: one item equals,
 * a range on a number, two groups joined by 或, a form state. Prints p50/p95 per search on embedded PGlite
 * and, when DATABASE_URL or TEST_DATABASE_URL names a PostgreSQL server, there too (in a scratch database
 * `edc_bench_search`, dropped afterwards). The goal is p95 under 1 s. Figures only, no thresholds.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { eq, sql } from 'drizzle-orm';
import type { CrfDefinition, SearchCondition } from '@ecrf/core';
import { wrapPglite, wrapPostgres, type Database } from '../packages/server/src/db/client.js';
import { crfStageCrfs, crfStages, crfVersions, crfs, studies, users } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { BENCH_PASSWORD, buildBenchApp } from './harness.js';

const PATIENTS = 10_000;
const FORMS = 50;
const REPEATABLE = 5;
const RUNS = 40;
const PG_URL = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;

const definition = (title: string): CrfDefinition => ({
  title,
  option: {},
  children: [
    { name: 'n1', title: '数值1', type: 'int', option: { units: 'mmHg' }, children: [] },
    { name: 'n2', title: '数值2', type: 'real', option: {}, children: [] },
    { name: 'd1', title: '日期', type: 'date', option: {}, children: [] },
    {
      name: 'c1',
      title: '单选',
      type: 'radio',
      option: { optionsValue: '1,2,3', optionsText: '甲,乙,丙' },
      children: [],
    },
    { name: 't1', title: '备注', type: 'input', option: {}, children: [] },
    {
      name: 'm1',
      title: '多选',
      type: 'checkbox',
      option: { optionsValue: 'a,b,c', optionsText: 'A,B,C' },
      children: [],
    },
    {
      name: 'meds',
      title: '用药',
      type: 'listGroup',
      option: {},
      children: [
        { name: 'r_name', title: '药物', type: 'input', option: {}, children: [] },
        { name: 'r_dose', title: '剂量', type: 'real', option: { units: 'mg,g' }, children: [] },
        {
          name: 'r_route',
          title: '途径',
          type: 'radio',
          option: { optionsValue: '1,2', optionsText: '口服,静脉' },
          children: [],
        },
      ],
    },
  ],
});

async function seedStudy(database: Database) {
  const db = database.db;
  const [study] = await db
    .insert(studies)
    .values({ studyName: '检索基准', studyCode: 'BENCH-SEARCH' })
    .returning({ studyId: studies.studyId });
  const studyId = study!.studyId;
  const [stage] = await db.insert(crfStages).values({ studyId, name: '基准阶段' }).returning({ id: crfStages.id });
  const crfIds: number[] = [];
  for (let i = 1; i <= FORMS; i++) {
    const title = `B${String(i).padStart(2, '0')}`;
    const [crf] = await db.insert(crfs).values({ studyId, title }).returning({ id: crfs.id });
    await db
      .insert(crfVersions)
      .values({ crfId: crf!.id, studyId, version: 1, definition: definition(title), source: 'json', itemCount: 9 });
    await db
      .insert(crfStageCrfs)
      .values({ stageId: stage!.id, crfId: crf!.id, studyId, repeat: i > FORMS - REPEATABLE ? 0 : 1, orderNum: i });
    crfIds.push(crf!.id);
  }
  await db.execute(sql`
    insert into subjects (study_id, identification_code, subject_name, gender, birth, disease_code, qr_code, created_at)
    select ${studyId}, 'B' || lpad(g::text, 6, '0'), '患者' || g, g % 2,
           to_char(date '1940-01-01' + (g * 7 % 20000), 'YYYY-MM-DD'), 'LSS', md5(g::text),
           now() - make_interval(secs => g)
    from generate_series(1, ${PATIENTS}) g`);
  await db.execute(sql`
    insert into subject_records (study_id, subject_id) select study_id, id from subjects where study_id = ${studyId}`);
  const values = sql`jsonb_build_object(
      'n1', (60 + floor(random() * 120))::int::text,
      'n2', round((random() * 10)::numeric, 1)::text,
      'd1', to_char(date '2024-01-01' + floor(random() * 700)::int, 'YYYY-MM-DD'),
      'c1', (1 + floor(random() * 3))::int::text,
      't1', 'note ' || floor(random() * 1000),
      'm1', jsonb_build_array('a', case when random() < 0.5 then 'b' else 'c' end),
      'meds', jsonb_build_array(
        jsonb_build_object('r_name', 'drug ' || floor(random() * 20), 'r_dose', floor(random() * 300)::int::text,
                           'r_route', (1 + floor(random() * 2))::int::text),
        jsonb_build_object('r_name', 'drug ' || floor(random() * 20), 'r_dose', round(random()::numeric * 0.3, 2)::text,
                           'r_dose_unit', 'g', 'r_route', (1 + floor(random() * 2))::int::text)))`;
  // Nine in ten patients have each single form; repeatable forms have two records.
  await db.execute(sql`
    insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, values, single_form)
    select sr.study_id, sr.id, c.id, 1, case when random() < 0.5 then 2 else 1 end, ${values}, true
    from subject_records sr cross join crfs c
    where sr.study_id = ${studyId} and c.study_id = ${studyId} and c.id <= ${crfIds[FORMS - REPEATABLE - 1]!}
      and random() < 0.9`);
  await db.execute(sql`
    insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, values, single_form)
    select sr.study_id, sr.id, c.id, 1, 2, ${values}, false
    from subject_records sr cross join crfs c cross join generate_series(1, 2)
    where sr.study_id = ${studyId} and c.study_id = ${studyId} and c.id > ${crfIds[FORMS - REPEATABLE - 1]!}`);
  await db.execute(sql`analyze`);
  return { studyId, crfIds };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function run(label: string, database: Database) {
  await database.migrate();
  await seed(database.db, { adminPassword: BENCH_PASSWORD, version: 'bench' });
  await database.db.update(users).set({ setPasswordMust: false }).where(eq(users.userName, '13800000000'));
  const started = performance.now();
  const { studyId, crfIds } = await seedStudy(database);
  console.log(
    `\n${label}: seeded ${PATIENTS} patients × ${FORMS} forms in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const { app } = await buildBenchApp(database);
  await app.ready();
  const login = await app.inject({
    method: 'POST',
    url: '/api/ignore/sys/login',
    payload: { username: '13800000000', password: BENCH_PASSWORD },
  });
  const token = login.json().data.token as string;

  const item = (form: number, itemName: string, operator: string, values: string[]): SearchCondition =>
    ({ kind: 'item', crfId: crfIds[form - 1]!, itemName, operator, values }) as SearchCondition;
  const searches: Array<[string, Array<{ join: 'and' | 'or'; conditions: SearchCondition[] }>, 'and' | 'or']> = [
    ['one item equals (B07 单选 = 乙)', [{ join: 'and', conditions: [item(7, 'c1', 'eq', ['2'])] }], 'and'],
    [
      'a range on a number (B12 数值1 介于 100–120)',
      [{ join: 'and', conditions: [item(12, 'n1', 'between', ['100', '120'])] }],
      'and',
    ],
    [
      'two groups joined by 或',
      [
        {
          join: 'and',
          conditions: [
            item(3, 'n1', 'gt', ['150']),
            { kind: 'patient', field: 'gender', operator: 'eq', values: ['1'] } as SearchCondition,
          ],
        },
        { join: 'and', conditions: [item(20, 'd1', 'between', ['2024-03-01', '2024-04-01'])] },
      ],
      'or',
    ],
    [
      'a form state (B30 已提交)',
      [
        {
          join: 'and',
          conditions: [
            { kind: 'formState', crfId: crfIds[29]!, operator: 'eq', values: ['submitted'] } as SearchCondition,
          ],
        },
      ],
      'and',
    ],
    [
      'any record of a repeatable form (B48 数值1 > 170)',
      [{ join: 'and', conditions: [item(48, 'n1', 'gt', ['170'])] }],
      'and',
    ],
    [
      'a list-group column, any row (B09 剂量 > 280 mg)',
      [{ join: 'and', conditions: [item(9, 'r_dose', 'gt', ['280'])] }],
      'and',
    ],
    [
      'two list-group columns in one row (B47)',
      [{ join: 'and', conditions: [item(47, 'r_name', 'eq', ['drug 3']), item(47, 'r_route', 'eq', ['2'])] }],
      'and',
    ],
  ];
  const columns = [
    { kind: 'patient', field: 'identificationCode' },
    { kind: 'item', crfId: crfIds[11], itemName: 'n1' },
    { kind: 'item', crfId: crfIds[47], itemName: 'd1' },
    { kind: 'item', crfId: crfIds[8], itemName: 'r_name' },
  ];
  for (const [name, groups, join] of searches) {
    const once = async () => {
      const t0 = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: '/api/business/search/v2',
        headers: { authorization: `Bearer ${token}` },
        payload: { studyId, conditions: { join, groups }, columns, pageNum: 1, pageSize: 10 },
      });
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.body}`);
      return { ms: performance.now() - t0, total: res.json().data.total as number };
    };
    for (let i = 0; i < 3; i++) await once();
    const samples: number[] = [];
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await once();
      samples.push(r.ms);
      total = r.total;
    }
    samples.sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(52)} ${String(total).padStart(6)} found   p50 ${percentile(samples, 0.5).toFixed(0).padStart(4)} ms   p95 ${percentile(samples, 0.95).toFixed(0).padStart(4)} ms`,
    );
  }
  await app.close();
  await database.close();
}

await run('PGlite (embedded, in memory)', wrapPglite(await PGlite.create()));
if (PG_URL) {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query('drop database if exists edc_bench_search with (force)');
  await admin.query('create database edc_bench_search');
  const url = new URL(PG_URL);
  url.pathname = '/edc_bench_search';
  try {
    await run(`PostgreSQL (${url.host})`, wrapPostgres(url.toString()));
  } finally {
    await admin.query('drop database if exists edc_bench_search with (force)');
    await admin.end();
  }
} else {
  console.log('PostgreSQL: DATABASE_URL / TEST_DATABASE_URL not set, skipped');
}
