/**
 * Data import (SRCH-06) at 10,000 rows × 30 items: one sheet of a 30-item form, one row per patient, through
 * the HTTP route on the default embedded database (PGlite on disk, fsync on). Prints the time and the peak RSS
 * of the preview (dry run) and of the import (a background job above 500 rows, followed to its end), the
 * event-loop delay meanwhile, and the p50/p99 of another client's reads issued in a loop meanwhile, alternately
 * opening one patient's form (`GET /api/v3/business/crf/:id`, the cheap read a site makes all day: the goal,
 * p99 < 100 ms, is judged on it) and the patient list (page of 10 with its count over every patient, which
 * costs tens of milliseconds by itself at 10,000 patients).
 * Prints figures; no thresholds here. BENCH_ROWS changes the row count; BENCH_DATABASE_URL runs it on PostgreSQL.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import { subjectRecords, subjects } from '../packages/server/src/db/schema/index.js';
import { benchServer } from './harness.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const ITEMS = 30;

const { database, databaseUrl, base, token, call, close } = await benchServer('import');
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
let probeRecordId = 0;
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
  const records = await database.db
    .insert(subjectRecords)
    .values(inserted.map((s) => ({ studyId, subjectId: s.id })))
    .returning({ id: subjectRecords.id });
  probeRecordId ||= records[0]!.id;
}

const wb = new ExcelJS.Workbook();
const sheet = wb.addWorksheet('导入压测表');
sheet.addRow(['identificationCode', ...children.map((c) => c.name)]);
codes.forEach((code, r) => {
  sheet.addRow([
    code,
    ...children.map((c, i) =>
      c.type === 'radio' ? String(((r + i) % 3) + 1) : c.type === 'date' ? '2025-06-01' : (r * 7 + i) % 1000,
    ),
  ]);
});
const workbook = Buffer.from(await wb.xlsx.writeBuffer());

/** Another user's reads, one after another while `work` runs (a form, then the patient list, in turn): their latencies. */
async function measured<T>(label: string, work: () => Promise<T>): Promise<T> {
  let running = true;
  const forms: number[] = [];
  const lists: number[] = [];
  const reads = (async () => {
    while (running) {
      let t0 = performance.now();
      await call('GET', `/api/v3/business/crf/${probeRecordId}?crfId=${uploaded.data.id}`);
      forms.push(performance.now() - t0);
      t0 = performance.now();
      await call('POST', '/api/v3/business/subjectRecord/list', { studyId, pageNum: 1, pageSize: 10 });
      lists.push(performance.now() - t0);
    }
  })();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const started = performance.now();
  const rssBefore = process.memoryUsage().rss;
  const out = await work();
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await reads;
  loop.disable();
  clearInterval(sampler);
  const pct = (samples: number[], p: number) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
  };
  const ms = (ns: number) => (ns / 1e6).toFixed(0);
  console.log(
    `  ${label.padEnd(22)} ${seconds.toFixed(1).padStart(6)} s   peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB (+${((peak - rssBefore) / 1024 / 1024).toFixed(0)} MB)` +
      `   event-loop delay p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms\n` +
      `    ${forms.length} form reads: p50 ${pct(forms, 0.5)} ms, p99 ${pct(forms, 0.99)} ms;` +
      `   ${lists.length} patient-list reads: p50 ${pct(lists, 0.5)} ms, p99 ${pct(lists, 0.99)} ms`,
  );
  return out;
}

const post = async (query: string) => {
  const form = new FormData();
  form.append('file', new Blob([workbook]), 'bench.xlsx');
  const res = await fetch(`${base}/api/business/import/multi_crf_sheet/multi_thread?studyId=${studyId}&${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return (await res.json()) as { code: number; msg: string; data: any };
};

console.log(
  `import: ${ROWS} rows × ${ITEMS} items (${(workbook.length / 1024 / 1024).toFixed(1)} MB workbook), ${databaseUrl ? `PostgreSQL (${databaseUrl.host})` : 'PGlite on disk'}`,
);
// The same reads with nothing else running: what the list costs by itself at this many patients.
await measured('idle (baseline)', () => new Promise((resolve) => setTimeout(resolve, 5_000)));
const preview = await measured('preview (dry run)', () => post('submitType=0&dryRun=true'));
if (preview.code !== 200) throw new Error(`preview failed: ${preview.msg}`);
console.log(`    ${JSON.stringify(preview.data.summary)}`);
const result = await measured('import (job)', async () => {
  const started = await post('submitType=0&mode=patient');
  if (started.code !== 200 || !started.data.job) throw new Error(`import failed: ${started.msg}`);
  for (;;) {
    const job = (await call('GET', `/api/system/jobs/${started.data.job.jobId}`)).data;
    if (job.state === 'done' || job.state === 'failed' || job.state === 'cancelled') return job;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});
const r = result.result ?? {};
console.log(
  `    job ${result.state}: ${r.importedPatients} patients, ${r.createdRecords} records created, ${r.values} values, ${r.errors?.length ?? 0} errors`,
);
await close();
