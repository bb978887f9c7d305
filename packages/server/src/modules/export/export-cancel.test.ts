import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLogs } from '../../db/schema/index.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import type { JobTools } from '../jobs/job-queue.js';
import { PATIENT_BATCH } from './export-source.js';
import { EXPORT_JOB_KIND, runExport, waitForJob, type ExportJobPayload } from './export.service.js';

/**
 * An export cancelled halfway, through the jobs API (POST /api/system/jobs/{id}/cancel): no result file is left in
 * the storage, the export's temporary folder is gone, the job is 已取消 and the export log says cancelled.
 *
 * Waits on states, never on time: the export job's handler is the real one (runExport) with its progress reports
 * held at a gate, so the test cancels exactly after the first batch of patients has been written and before the
 * next one is read. The study has more than two batches of patients so "halfway" is halfway.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let vitals: number;
const PATIENTS = PATIENT_BATCH * 2 + 100;
const ownTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-cancel-test-'));
const tmpBefore = process.env.TMPDIR;

const partialWritten = () =>
  fs
    .readdirSync(ownTmp)
    .filter((f) => f.startsWith('edc-export-'))
    .some((f) => fs.readdirSync(path.join(ownTmp, f)).some((name) => fs.statSync(path.join(ownTmp, f, name)).size > 0));

/** The gate the export's progress waits at: `reached` when the first batch is written, `release` to go on. */
interface Gate {
  reached: Promise<number>;
  release: () => void;
}
let gate: Gate | null = null;

function newGate(): Gate {
  let reached!: (percent: number) => void;
  let release!: () => void;
  const reachedP = new Promise<number>((r) => (reached = r));
  const released = new Promise<void>((r) => (release = r));
  let armed = true;
  const g: Gate & { hold: (percent: number) => Promise<void> } = {
    reached: reachedP,
    release,
    hold: async (percent) => {
      if (!armed) return;
      armed = false;
      reached(percent);
      await released;
    },
  };
  gate = g;
  return g;
}

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  vitals = demo.crfIds['生命体征']!;
  // Patients and one record each, written by SQL: the export reads them as any others.
  await t.db.execute(sql`
    insert into subjects (study_id, identification_code, subject_name, gender, disease_code, qr_code)
    select ${studyId}, 'C' || lpad(n::text, 5, '0'), '取消' || n, n % 2, 'LSS', md5('cancel' || n::text)
    from generate_series(1, ${PATIENTS}::int) n`);
  await t.db.execute(sql`
    insert into subject_records (study_id, subject_id)
    select ${studyId}, s.id from subjects s where s.study_id = ${studyId} and s.identification_code like 'C%'`);
  await t.db.execute(sql`
    insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, values, single_form)
    select ${studyId}, sr.id, ${vitals}, 1, 1, jsonb_build_object('sbp', 100 + sr.id % 60, 'dbp', 70), true
    from subject_records sr where sr.study_id = ${studyId}`);

  // The real export handler, its progress held at the gate once the export has written part of the patients.
  t.ctx.jobs.handle<ExportJobPayload>(EXPORT_JOB_KIND, (job, tools) => {
    const held: JobTools = {
      ...tools,
      progress: async (percent, message) => {
        await tools.progress(percent, message);
        const g = gate as (Gate & { hold: (p: number) => Promise<void> }) | null;
        // Held once part of the file is on disk: a writer that reads the patients first (to size its columns)
        // reports progress before it writes anything.
        if (g && percent > 0 && percent < 95 && partialWritten()) await g.hold(percent);
      },
    };
    return runExport(t.ctx, job, held, (userId, permissions, id) => studyAccessOf(t.ctx, userId, permissions, id));
  });
  // The export's temporary folders (os.tmpdir()) go to a folder of this test's own, to be seen empty afterwards.
  process.env.TMPDIR = ownTmp;
});

afterAll(async () => {
  gate?.release();
  if (tmpBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpBefore;
  fs.rmSync(ownTmp, { recursive: true, force: true });
  await t?.close();
});

describe('cancelling an export', () => {
  it.each(['csvWide', 'excel', 'redcap'] as const)(
    'SRCH-05: a %s export cancelled halfway through the jobs API leaves no file, and the job and its log are cancelled',
    async (format) => {
      const g = newGate();
      const asked = await t.call(admin, 'POST', '/api/v3/business/search/export', { studyId, format });
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      const jobId = asked.body.data.jobId as string;

      // Halfway: the first batch written, the job running, its partial file in the export's temporary folder.
      const percent = await g.reached;
      expect(percent).toBeGreaterThan(0);
      expect(percent).toBeLessThan(95);
      const running = await t.call(admin, 'GET', `/api/system/jobs/${jobId}`);
      expect(running.body.data).toMatchObject({ state: 'running', progress: percent });
      const folders = fs.readdirSync(ownTmp).filter((f) => f.startsWith('edc-export-'));
      expect(folders).toHaveLength(1);
      const partial = fs.readdirSync(path.join(ownTmp, folders[0]!));
      expect(partial.length).toBeGreaterThan(0);

      const cancel = await t.call(admin, 'POST', `/api/system/jobs/${jobId}/cancel`);
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      expect(cancel.body).toMatchObject({ msg: '正在取消', data: { state: 'running', cancelRequested: true } });
      g.release();

      const ended = await waitForJob(t.ctx, jobId, 60_000);
      expect(ended).toMatchObject({ state: 'cancelled', cancelRequested: true, resultFile: null });
      expect(ended!.progress).toBeLessThan(100);
      // No file anywhere: not in the job results, not in the export's temporary folder.
      expect(await t.ctx.jobs.openResult(jobId)).toBeNull();
      expect(await t.ctx.files.exists(`job-results/${jobId}`)).toBe(false);
      const result = await t.call(admin, 'GET', `/api/system/jobs/${jobId}/result`);
      expect(result.status).toBe(404);
      expect(fs.readdirSync(ownTmp)).toEqual([]);
      const [log] = await t.db
        .select()
        .from(exportLogs)
        .where(and(eq(exportLogs.studyId, studyId), eq(exportLogs.jobId, jobId)));
      expect(log).toMatchObject({ state: 'cancelled', fileName: null, sha256: null });
      // A cancelled job cannot be cancelled again.
      expect((await t.call(admin, 'POST', `/api/system/jobs/${jobId}/cancel`)).status).toBe(409);
    },
  );
});
