/**
 * An amendment's migration (issue 36) of 10,000 records through the HTTP routes on the default embedded database
 * (PGlite on disk, fsync on): the records written straight into the tables (one patient each, version 1 of
 * 随访评估), version 2 uploaded into the CRF's draft, its impact report read, the draft published and every record
 * moved by the background job ('crf-migration', 200 records a transaction). Meanwhile another user works: a loop
 * opening a patient's form (`GET /api/v3/business/crf/:id`) and a loop saving records of the same form (re-read and
 * saved again when the job moved the record under it, as the page does). Prints the times, the records per second,
 * and the p50/p99 of those requests during the migration beside the same loops idle.
 * Prints figures; no thresholds here. BENCH_RECORDS changes the count; BENCH_DATABASE_URL runs it on PostgreSQL.
 */
import { eq } from 'drizzle-orm';
import { studies } from '../packages/server/src/db/schema/index.js';
import { menRecords, seedRecords, V1, V2 } from '../packages/server/src/test/amendment-fixture.js';
import { benchServer } from './harness.js';
import { jobEnd, otherUserLoad } from './other-user-load.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);

const { database, databaseUrl, base, token, call, close } = await benchServer('migration');
const ok = (answer: { code: number; msg: string; data: any }, what: string) => {
  if (answer.code !== 200) throw new Error(`${what}: ${answer.code} ${answer.msg}`);
  return answer.data;
};

const studyId = ok(await call('GET', '/api/business/study/list'), 'study list').list[0].id as number;
await database.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, studyId));
const crfId = ok(await call('POST', '/api/system/crf', { studyId, definition: V1 }), 'CRF upload').crfs[0].id as number;
const site = async (deptName: string) =>
  ok(await call('POST', '/api/system/dept', { deptName, parentId: 1, orderNum: 5 }), 'site').deptId as number;
const target = { studyId, crfId, siteA: await site('压测甲中心'), siteB: await site('压测乙中心') };
let started = performance.now();
await seedRecords(database.db, target, RECORDS, 'MIG');
console.log(
  `crf migration: ${RECORDS} records, ${databaseUrl ? `PostgreSQL (${databaseUrl.host})` : 'PGlite on disk'}; written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const draftForm = new FormData();
draftForm.append('studyId', String(studyId));
draftForm.append('draft', '1');
draftForm.append('file', new Blob([JSON.stringify(V2)]), '随访评估.json');
ok(
  (await (
    await fetch(`${base}/api/system/crf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: draftForm,
    })
  ).json()) as { code: number; msg: string; data: any },
  'draft upload',
);

const men = await menRecords(database.db, crfId, RECORDS);
const probe = men[0]!;
const saveTargets = Array.from({ length: 50 }, (_, i) => men[Math.floor((i * men.length) / 50)]!);

const measured = otherUserLoad({
  db: database.db,
  call,
  crfId,
  probe,
  saveTargets,
  change: (n) => ({ weight: String(60 + (n % 30)) }),
});

await measured('idle (baseline)', () => new Promise((resolve) => setTimeout(resolve, 5_000)));
started = performance.now();
const impact = ok(await call('GET', `/api/system/crf/draft/impact?studyId=${studyId}&crfId=${crfId}`), 'impact');
console.log(
  `  impact report            ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s   ${JSON.stringify(impact.records)}`,
);
started = performance.now();
const published = ok(
  await call('POST', '/api/system/crf/draft/publish', { studyId, crfId, name: '压测修订' }),
  'publish',
);
console.log(`  publish (with its report) ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s`);
const { out: job, seconds } = await measured('migration (job)', async () => {
  const queued = ok(
    await call('POST', '/api/business/amendment/migrate', {
      studyId,
      amendmentId: published.amendmentId,
      scope: { kind: 'all' },
    }),
    'migrate',
  );
  return jobEnd(call, queued.jobId);
});
console.log(
  `    job ${job.state} in ${seconds.toFixed(1)} s (${(RECORDS / seconds).toFixed(0)} records/s): ${JSON.stringify(job.result)}`,
);
await close();
