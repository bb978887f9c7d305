/**
 * A data quality run (数据核查, issue 37) over 10,000 patients through the HTTP routes on the default embedded
 * database (PGlite on disk, fsync on): one record of 随访评估 per patient written straight into the tables, then the
 * whole study's checks run by the background job ('quality-run') while another user opens and saves forms. Prints the
 * run's time, its findings, and the p50/p99 of those requests during the run beside the same loops idle (the issue's
 * bound: other requests' p99 stays under 100 ms). No thresholds here. BENCH_RECORDS changes the count;
 * BENCH_DATABASE_URL runs it on PostgreSQL.
 */
import { eq } from 'drizzle-orm';
import { studies } from '../packages/server/src/db/schema/index.js';
import { menRecords, seedRecords, V1 } from '../packages/server/src/test/amendment-fixture.js';
import { benchServer } from './harness.js';
import { jobEnd, otherUserLoad } from './other-user-load.js';

const PATIENTS = Number(process.env.BENCH_RECORDS ?? 10_000);

const { database, databaseUrl, call, close } = await benchServer('quality');
const ok = (answer: { code: number; msg: string; data: any }, what: string) => {
  if (answer.code !== 200) throw new Error(`${what}: ${answer.code} ${answer.msg}`);
  return answer.data;
};

const studyId = ok(await call('GET', '/api/business/study/list'), 'study list').list[0].id as number;
await database.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, studyId));
// The seeded weights run 50–89 kg: a range check of 40–85 kg finds one record in ten, so the run writes findings.
const definition = {
  ...V1,
  children: V1.children.map((node) =>
    node.name === 'weight' ? { ...node, option: { ...node.option, validate: { min: 40, max: 85 } } } : node,
  ),
};
const crfId = ok(await call('POST', '/api/system/crf', { studyId, definition }), 'CRF upload').crfs[0].id as number;
const site = async (deptName: string) =>
  ok(await call('POST', '/api/system/dept', { deptName, parentId: 1, orderNum: 5 }), 'site').deptId as number;
const target = { studyId, crfId, siteA: await site('核查甲中心'), siteB: await site('核查乙中心') };
const started = performance.now();
await seedRecords(database.db, target, PATIENTS, 'QC');
console.log(
  `quality run: ${PATIENTS} patients, ${databaseUrl ? `PostgreSQL (${databaseUrl.host})` : 'PGlite on disk'}; written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const men = await menRecords(database.db, crfId, PATIENTS);
const measured = otherUserLoad({
  db: database.db,
  call,
  crfId,
  probe: men[0]!,
  saveTargets: Array.from({ length: 50 }, (_, i) => men[Math.floor((i * men.length) / 50)]!),
  change: (n) => ({ weight: String(60 + (n % 20)) }),
});

await measured('idle (baseline)', () => new Promise((resolve) => setTimeout(resolve, 5_000)));
const { out: job, seconds } = await measured('quality run (job)', async () => {
  const queued = ok(
    await call('POST', '/api/business/quality/run', { studyId, scope: { kind: 'study' } }),
    'quality run',
  ) as { runId: number; jobId: string };
  const ended = await jobEnd(call, queued.jobId);
  return { ...ended, runId: queued.runId };
});
const run = ok(await call('GET', `/api/business/quality/run?studyId=${studyId}&runId=${job.runId}`), 'run');
console.log(
  `    job ${job.state} in ${seconds.toFixed(1)} s (${(run.recordsChecked / seconds).toFixed(0)} records/s): ` +
    `${run.recordsChecked} records checked, ${run.findingsCount} findings ` +
    JSON.stringify(run.rules.map((r: { ruleKey: string; count: number }) => [r.ruleKey, r.count])),
);
await close();
