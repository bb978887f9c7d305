import { and, count, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfDataRecords } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { menRecords, seedRecords } from '../../test/amendment-fixture.js';
import { jobEnded, openAmendmentStudy, uploadDraft, V2, type AmendmentStudy } from './amendment-test-kit.js';

/**
 * Issue 36: a server test migrates 10,000 records while saves continue. The records are written with SQL; the
 * amendment is published and its migration started through the API; meanwhile savers change records of the same
 * form through HTTP, each re-reading the record and saving again when the migration moved it under them (409, as
 * the page does). Every save lands, no record is lost, every record ends on the new version with the saved values.
 *
 * The issue's 10,000 take about 70 s on a loaded 2-core machine (most of it the outbox delivering each moved record's
 * event); AMENDMENT_LOAD_RECORDS sets another size (.ci/run's PostgreSQL pass runs 2,000: the same code, a second
 * database). bench/crf-migration.ts measures the time and other requests' p99.
 */
const RECORDS = Number(process.env.AMENDMENT_LOAD_RECORDS ?? 10_000);
const SAVERS = 4;
const TARGETS = 40;

let t: TestApp;
let s: AmendmentStudy;
beforeAll(async () => {
  t = await createTestApp();
  const admin = (await t.login()).token;
  s = await openAmendmentStudy(t, admin);
  await seedRecords(t.db, s, RECORDS);
  expect((await uploadDraft(t, admin, s.studyId, V2)).status).toBe(200);
}, 300_000);
afterAll(() => t.close());

describe('migrating many records', () => {
  it(`moves ${RECORDS} records in batches while saves of the same form go on: every save lands, no record is lost`, async () => {
    const published = await t.call(s.admin, 'POST', '/api/system/crf/draft/publish', {
      studyId: s.studyId,
      crfId: s.crfId,
      name: '负载修订',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const men = await menRecords(t.db, s.crfId, RECORDS);
    // Spread over the id range: some move before they are saved, some after, some while.
    const targets = Array.from({ length: TARGETS }, (_, i) => men[Math.floor((i * men.length) / TARGETS)]!);

    const started = await t.call(s.admin, 'POST', '/api/business/amendment/migrate', {
      studyId: s.studyId,
      amendmentId: published.body.data.amendmentId,
      scope: { kind: 'all' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobId = started.body.data.jobId as string;
    let running = true;
    const ended = jobEnded(t, jobId).finally(() => {
      running = false;
    });

    /** The weight each target was last saved with. */
    const lastSaved = new Map<number, string>();
    const stats = { saves: 0, retries: 0, duringJob: 0, failures: [] as string[] };
    const saveOnce = async (target: { id: number; subjectRecordId: number }, weight: string) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const [record] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, target.id));
        const res = await t.call(s.admin, 'PUT', '/api/v3/business/crf', {
          subjectRecordId: target.subjectRecordId,
          crfId: s.crfId,
          crfDataRecordId: target.id,
          version: record!.version,
          values: { ...record!.values, weight },
        });
        if (res.status === 200) return true;
        if (res.body.code === 409) {
          stats.retries += 1;
          continue;
        }
        stats.failures.push(`${res.status} ${res.body.msg}`);
        return false;
      }
      stats.failures.push('too many conflicts');
      return false;
    };
    // Saves come at the job's pace: at each of its progress reports (a batch committed, the next one starting) each
    // saver saves its next target, so that saves overlap every batch without starving it of the connection.
    let wake: () => void = () => undefined;
    const stopListening = t.ctx.jobs.onProgress((view) => {
      if (view.jobId === jobId) wake();
    });
    const nextReport = () => new Promise<void>((resolve) => (wake = resolve));
    const saver = async (n: number) => {
      let round = 0;
      while (running || round === 0) {
        const i = (n + round * SAVERS) % targets.length;
        const weight = String(60 + ((round * 7 + i) % 30));
        const during = running;
        if (await saveOnce(targets[i]!, weight)) {
          lastSaved.set(targets[i]!.id, weight);
          stats.saves += 1;
          if (during) stats.duringJob += 1;
        }
        round += 1;
        if (running) await Promise.race([nextReport(), ended]);
      }
    };
    await Promise.all([...Array.from({ length: SAVERS }, (_, n) => saver(n)), ended]);
    const job = await ended;
    stopListening();

    expect(stats.failures).toEqual([]);
    expect(stats.duringJob).toBeGreaterThan(0);
    expect(job.state).toBe('done');
    expect(job.result).toEqual({ moved: RECORDS, changed: RECORDS, skippedLocked: 0, failed: 0 });
    const [live] = await t.db
      .select({ n: count() })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.crfId, s.crfId), isNull(crfDataRecords.deletedAt)));
    expect(live!.n).toBe(RECORDS);
    const byVersion = await t.db
      .select({ v: crfDataRecords.crfVersion, n: count() })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.crfId, s.crfId))
      .groupBy(crfDataRecords.crfVersion);
    expect(byVersion).toEqual([{ v: 2, n: RECORDS }]);
    // No save was lost: each target holds the weight it was last saved with, and 指数 by the new calculation.
    expect(lastSaved.size).toBeGreaterThan(SAVERS);
    for (const [id, weight] of lastSaved) {
      const [record] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, id));
      expect(record!.values).toMatchObject({ weight, bmi: String(Number(weight) / 4), note: '旧备注' });
    }
  }, 600_000);
});
