import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { wrapPostgres, type Database } from '../../db/client.js';
import { appliedRequests, jobs, kvEntries, scheduledRuns, sessions } from '../../db/schema/index.js';
import { databaseUrlFor, openTestDatabase } from '../../test/test-db.js';
import { localFileStorage } from '../../shared/file-storage.js';
import { jobFiles } from './job-files.js';
import { scheduledTasks } from './scheduled-tasks.js';
import { createScheduler, periodOf, type ScheduledTask } from './scheduler.js';

const DAY = 86_400_000;
const silent = () => undefined;

/**
 * Two app servers' connections to one database. On PostgreSQL (TEST_DATABASE_URL) they are two connection
 * pools, as two servers would have; on the embedded database the same handle twice.
 */
async function openTwice(): Promise<{ first: Database; second: Database; close(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openTestDatabase(inject('pgliteTemplate'));
    return { first: database, second: database, close: () => database.close() };
  }
  const name = `${inject('postgresTemplate')}_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('postgresTemplate')}`);
  const first = wrapPostgres(databaseUrlFor(serverUrl, name));
  const second = wrapPostgres(databaseUrlFor(serverUrl, name));
  return {
    first,
    second,
    close: async () => {
      await first.close();
      await second.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describe('scheduler: a recurring task runs once per period across app servers', () => {
  let databases: Awaited<ReturnType<typeof openTwice>>;
  beforeAll(async () => {
    databases = await openTwice();
  });
  afterAll(async () => {
    await databases?.close();
  });

  it('JOB-06 two schedulers ticking at once on one database run each period of a task exactly once', async () => {
    let now = new Date('2026-11-23T08:00:00Z');
    const clock = () => now;
    const runs: string[] = [];
    const task = (server: string): ScheduledTask => ({
      name: 'test.race',
      every: 'hour',
      async run(at) {
        runs.push(`${server} ${periodOf('hour', at)}`);
        // Long enough for the other server's claim to land while this one still runs.
        await new Promise((r) => setTimeout(r, 5));
        return 'counted';
      },
    });
    const one = createScheduler({ db: databases.first.db, clock, log: silent }, [task('one')]);
    const two = createScheduler({ db: databases.second.db, clock, log: silent }, [task('two')]);
    for (let hour = 0; hour < 12; hour++) {
      const answers = await Promise.all([one.tick(), two.tick(), one.tick(), two.tick()]);
      expect(answers.map((a) => a['test.race']).sort()).toEqual(['ran', 'skipped', 'skipped', 'skipped']);
      now = new Date(now.getTime() + 3_600_000);
    }
    const periods = runs.map((r) => r.split(' ')[1]);
    expect(periods).toHaveLength(12);
    expect(new Set(periods).size).toBe(12);
    const rows = await databases.first.db.select().from(scheduledRuns).where(eq(scheduledRuns.task, 'test.race'));
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.finishedAt && r.outcome === 'counted' && !r.failed)).toBe(true);
  });

  it('JOB-07 a failing task is recorded as failed with its error class only, and does not stop the others', async () => {
    const now = new Date('2026-11-24T08:00:00Z');
    let ran = false;
    const scheduler = createScheduler({ db: databases.first.db, clock: () => now, log: silent }, [
      {
        name: 'test.broken',
        every: 'day',
        run: async () => {
          throw new TypeError('value 张三 is not a number');
        },
      },
      {
        name: 'test.after',
        every: 'day',
        run: async () => {
          ran = true;
          return 'ok';
        },
      },
    ]);
    expect(await scheduler.tick()).toEqual({ 'test.broken': 'ran', 'test.after': 'ran' });
    expect(ran).toBe(true);
    const [row] = await databases.first.db.select().from(scheduledRuns).where(eq(scheduledRuns.task, 'test.broken'));
    expect(row).toMatchObject({ failed: true, outcome: 'TypeError', period: '2026-11-24' });
  });

  it('JOB-08 the cleanup tasks delete expired sessions, entries, old save request ids and expired job result files only', async () => {
    const db = databases.first.db;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-scheduler-test-'));
    try {
      const now = new Date('2026-12-01T02:00:00Z');
      const ago = (days: number) => new Date(now.getTime() - days * DAY);
      const session = (id: string, expiresAt: Date) => ({
        sessionId: id,
        userId: 1,
        refreshHash: crypto.createHash('sha256').update(id).digest('hex'),
        expiresAt,
      });
      await db
        .insert(sessions)
        .values([
          session('00000000-0000-0000-0000-00000000000a', ago(3)),
          session('00000000-0000-0000-0000-00000000000b', ago(0.5)),
          session('00000000-0000-0000-0000-00000000000c', ago(-7)),
        ]);
      await db.insert(kvEntries).values([
        { key: 'test:gone', value: '1', expiresAt: ago(0.01) },
        { key: 'test:live', value: '1', expiresAt: ago(-0.01) },
      ]);
      const applied = (requestId: string, createdAt: Date) => ({
        userId: 1,
        requestId,
        studyId: 1,
        subjectRecordId: 1,
        crfId: 1,
        crfDataRecordId: 1,
        version: 1,
        state: 1,
        createdAt,
      });
      await db.insert(appliedRequests).values([applied('test-old', ago(31)), applied('test-recent', ago(29))]);
      const files = jobFiles(localFileStorage(dataDir));
      const filesDir = path.join(dataDir, 'job-results');
      const job = (jobId: string, finishedAt: Date) => ({
        jobId,
        kind: 'test.file',
        ownerId: 1,
        state: 'done',
        resultFileName: 'r.csv',
        resultContentType: 'text/csv',
        resultSize: 1,
        createdAt: finishedAt,
        finishedAt,
      });
      const oldJob = crypto.randomUUID();
      const newJob = crypto.randomUUID();
      await db.insert(jobs).values([job(oldJob, ago(8)), job(newJob, ago(6))]);
      await files.write(oldJob, Buffer.from('x'));
      await files.write(newJob, Buffer.from('x'));

      const scheduler = createScheduler({ db, clock: () => now, log: silent }, scheduledTasks(db, files));
      const ran = await scheduler.tick();
      expect(Object.values(ran).every((r) => r === 'ran')).toBe(true);

      const left = (await db.select({ id: sessions.sessionId }).from(sessions)).map((r) => r.id);
      expect(left).not.toContain('00000000-0000-0000-0000-00000000000a');
      expect(left).toEqual(
        expect.arrayContaining(['00000000-0000-0000-0000-00000000000b', '00000000-0000-0000-0000-00000000000c']),
      );
      const keys = (await db.select({ key: kvEntries.key }).from(kvEntries)).map((r) => r.key);
      expect(keys).toContain('test:live');
      expect(keys).not.toContain('test:gone');
      const ids = (await db.select({ id: appliedRequests.requestId }).from(appliedRequests)).map((r) => r.id);
      expect(ids).toContain('test-recent');
      expect(ids).not.toContain('test-old');
      const [expired] = await db.select().from(jobs).where(eq(jobs.jobId, oldJob));
      const [kept] = await db.select().from(jobs).where(eq(jobs.jobId, newJob));
      expect(expired).toMatchObject({ state: 'done', resultFileName: null });
      expect(kept).toMatchObject({ resultFileName: 'r.csv' });
      expect(fs.existsSync(path.join(filesDir, oldJob))).toBe(false);
      expect(fs.existsSync(path.join(filesDir, newJob))).toBe(true);
      const [run] = await db.select().from(scheduledRuns).where(eq(scheduledRuns.task, 'cleanup.job-results'));
      expect(run?.outcome).toBe('1 expired result files deleted');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
