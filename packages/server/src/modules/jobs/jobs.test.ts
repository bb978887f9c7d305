import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, users } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { GENERIC_JOB_ERROR, JobFailure, type JobQueue, type JobView } from './job-queue.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
const haveRedis = await redisAnswers();

/** Waits (polling the record, never a fixed sleep) until the job reaches what `done` looks for. */
async function until(queue: JobQueue, jobId: string, done: (job: JobView) => boolean, what: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = await queue.get(jobId);
    if (job && done(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} never ${what}: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A promise the test resolves by hand: handlers wait on it at a known point. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

function waitForAbort(signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

const implementations = [
  { name: 'in-process queue on the database', redis: false, skip: false },
  { name: 'BullMQ on Redis', redis: true, skip: !haveRedis },
];

for (const impl of implementations) {
  const title = impl.skip
    ? `${impl.name} (skipped: Redis does not answer at ${REDIS_URL})`
    : `${impl.name}: progress, cancel, failure, restart`;
  describe.skipIf(impl.skip)(title, () => {
    let t: TestApp;
    let ownerId: number;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-jobs-test-'));
    const queueName = `edc-jobs-test-${crypto.randomBytes(4).toString('hex')}`;
    // The restarted apps get a queue of their own: the main app's BullMQ worker has no handler for their kind.
    const appOptions = (database?: TestApp['database']) => ({
      config: { dataDir, redisUrl: impl.redis ? REDIS_URL : undefined },
      jobs: { queueName: database ? `${queueName}-restart` : queueName, concurrency: 1, heartbeatMs: 50 },
      ...(database ? { database } : {}),
    });

    beforeAll(async () => {
      t = await createTestApp(appOptions());
      ownerId = (await t.login()).user.userId;
    });
    afterAll(async () => {
      await t?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('JOB-01 progress is recorded, read back and heard by the listeners; the result file is kept', async () => {
      expect(t.ctx.jobs.implementation).toBe(impl.redis ? 'bullmq' : 'local');
      const release = gate();
      t.ctx.jobs.handle<{ total: number }, { exported: number }>('test.progress', async (job, tools) => {
        await tools.progress(30, `正在导出 3/${job.payload.total}`);
        await release.opened;
        await tools.saveResultFile({ fileName: '导出.csv', contentType: 'text/csv', data: Buffer.from('a,b\n') });
        return { exported: job.payload.total };
      });
      const heard: JobView[] = [];
      const stop = t.ctx.jobs.onProgress((job) => heard.push(job));
      const queued = await t.ctx.jobs.enqueue('test.progress', { total: 10 }, { ownerId, studyId: 1 });
      expect(queued).toMatchObject({ state: 'queued', progress: 0, ownerId, studyId: 1 });

      const running = await until(t.ctx.jobs, queued.jobId, (j) => j.progress === 30, 'reported progress');
      expect(running).toMatchObject({ state: 'running', progress: 30, message: '正在导出 3/10', attempts: 1 });
      release.open();
      const done = await until(t.ctx.jobs, queued.jobId, (j) => j.state === 'done', 'finished');
      expect(done).toMatchObject({
        progress: 100,
        result: { exported: 10 },
        resultFile: { fileName: '导出.csv', contentType: 'text/csv', size: 4 },
      });
      stop();
      const mine = heard.filter((j) => j.jobId === queued.jobId);
      expect(mine.map((j) => j.state)).toEqual(expect.arrayContaining(['queued', 'running', 'done']));
      expect(mine.some((j) => j.progress === 30 && j.message === '正在导出 3/10')).toBe(true);

      const file = await t.ctx.jobs.openResult(queued.jobId);
      const chunks: Buffer[] = [];
      for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('a,b\n');
      const page = await t.ctx.jobs.list(ownerId, { pageNum: 1, pageSize: 10, limit: 10, offset: 0 });
      expect(page.list.map((j) => j.jobId)).toContain(queued.jobId);
    });

    it('JOB-02 a queued job cancelled never starts; a running one sees signal.aborted and stops', async () => {
      const started: string[] = [];
      const hold = gate();
      t.ctx.jobs.handle('test.block', async (job, { signal }) => {
        started.push(job.jobId);
        await Promise.race([waitForAbort(signal), hold.opened]);
        return { stoppedByCancel: signal.aborted };
      });
      // Concurrency 1: the first job holds the only slot, the second waits in the queue.
      const first = await t.ctx.jobs.enqueue('test.block', {}, { ownerId });
      await until(t.ctx.jobs, first.jobId, (j) => j.state === 'running', 'started');
      const second = await t.ctx.jobs.enqueue('test.block', {}, { ownerId });
      const cancelledQueued = await t.ctx.jobs.cancel(second.jobId);
      expect(cancelledQueued).toMatchObject({ state: 'cancelled', cancelRequested: true });

      const asked = await t.ctx.jobs.cancel(first.jobId);
      expect(asked?.cancelRequested).toBe(true);
      const stopped = await until(t.ctx.jobs, first.jobId, (j) => j.state === 'cancelled', 'was cancelled');
      expect(stopped.finishedAt).not.toBeNull();
      expect(stopped.resultFile).toBeNull();

      // A third job runs after both: had the cancelled one started, it would have run before this.
      const third = await t.ctx.jobs.enqueue('test.block', {}, { ownerId });
      await until(t.ctx.jobs, third.jobId, (j) => j.state === 'running', 'started');
      hold.open();
      await until(t.ctx.jobs, third.jobId, (j) => j.state === 'done', 'finished');
      expect(started).toEqual([first.jobId, third.jobId]);
      expect((await t.ctx.jobs.get(second.jobId))?.state).toBe('cancelled');
    });

    it('JOB-02 a cancel written through another app server reaches the running job at its next heartbeat', async () => {
      const other = await createTestApp(appOptions(t.database));
      try {
        t.ctx.jobs.handle('test.far', async (_job, { signal }) => {
          await waitForAbort(signal);
        });
        const job = await t.ctx.jobs.enqueue('test.far', {}, { ownerId });
        await until(t.ctx.jobs, job.jobId, (j) => j.state === 'running', 'started');
        const asked = await other.ctx.jobs.cancel(job.jobId);
        expect(asked).toMatchObject({ state: 'running', cancelRequested: true });
        await until(t.ctx.jobs, job.jobId, (j) => j.state === 'cancelled', 'was cancelled');
      } finally {
        await other.close();
      }
    });

    it('JOB-03 a failed job keeps the message written for its owner, and no value from any other error', async () => {
      t.ctx.jobs.handle<{ words: boolean }>('test.fail', async (job) => {
        if (job.payload.words) throw new JobFailure('导出失败：所选表单已被删除');
        throw new Error('invalid input syntax for type integer: "张三 110101199003077777"');
      });
      const worded = await t.ctx.jobs.enqueue('test.fail', { words: true }, { ownerId });
      const other = await t.ctx.jobs.enqueue('test.fail', { words: false }, { ownerId });
      expect(await until(t.ctx.jobs, worded.jobId, (j) => j.state === 'failed', 'failed')).toMatchObject({
        error: '导出失败：所选表单已被删除',
      });
      const failed = await until(t.ctx.jobs, other.jobId, (j) => j.state === 'failed', 'failed');
      expect(failed.error).toBe(GENERIC_JOB_ERROR);
      const [row] = await t.db.select().from(jobs).where(eq(jobs.jobId, other.jobId));
      expect(JSON.stringify(row)).not.toContain('张三');
      expect(JSON.stringify(row)).not.toContain('110101');
    });

    it('JOB-04 a restart resumes: a job running when its app closed runs again on the next app on that database', async () => {
      const first = await createTestApp(appOptions(t.database));
      const reached = gate();
      first.ctx.jobs.handle('test.resume', async (_job, { progress, signal }) => {
        await progress(50, '正在处理 1/2');
        reached.open();
        await waitForAbort(signal);
        throw new Error('stopped by the shutdown');
      });
      const queued = await first.ctx.jobs.enqueue('test.resume', {}, { ownerId });
      await reached.opened;
      await first.close();
      const between = await t.ctx.jobs.get(queued.jobId);
      expect(between).toMatchObject({ state: 'queued', attempts: 1 });

      const second = await createTestApp(appOptions(t.database));
      try {
        second.ctx.jobs.handle('test.resume', async (job, { progress }) => {
          await progress(100, '正在处理 2/2');
          return { attempt: job.attempt };
        });
        const done = await until(second.ctx.jobs, queued.jobId, (j) => j.state === 'done', 'finished after restart');
        expect(done).toMatchObject({ attempts: 2, result: { attempt: 2 }, error: null });
      } finally {
        await second.close();
      }
    });

    it.skipIf(impl.redis)(
      'JOB-04 a job whose process died while running (its claim ran out) is taken again by the next app',
      async () => {
        const next = await createTestApp(appOptions(t.database));
        try {
          // As a killed process leaves it: running, claimed by a process that renews nothing any more.
          const jobId = crypto.randomUUID();
          await t.db.insert(jobs).values({
            jobId,
            kind: 'test.crashed',
            ownerId,
            payload: {},
            state: 'running',
            attempts: 1,
            lockedBy: 'dead-host:1:000000',
            lockedUntil: new Date(t.clock().getTime() - 1),
            createdAt: t.clock(),
            startedAt: t.clock(),
          });
          next.ctx.jobs.handle('test.crashed', async (job) => ({ attempt: job.attempt }));
          const done = await until(next.ctx.jobs, jobId, (j) => j.state === 'done', 'finished after the crash');
          expect(done).toMatchObject({ attempts: 2, result: { attempt: 2 } });
        } finally {
          await next.close();
        }
      },
    );
  });
}

describe('job routes: only the owner sees, cancels and downloads a job (JOB-05)', () => {
  let t: TestApp;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-jobs-routes-'));
  let admin: string;
  let owner: string;
  let other: string;
  let ownerId: number;

  async function plainUser(userName: string) {
    const role = await t.call(admin, 'POST', '/api/system/role', {
      roleName: `普通${userName}`,
      roleKey: `plain${userName}`,
      menuIds: [],
    });
    const created = await t.call(admin, 'POST', '/api/system/user', {
      userName,
      password: 'Passw0rd',
      name: `用户${userName.slice(-3)}`,
      deptId: 1,
      roleIds: [role.body.data.roleId],
    });
    const userId = created.body.data.userId as number;
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, userId));
    return { token: (await t.login(userName, 'Passw0rd')).token, userId };
  }

  beforeAll(async () => {
    t = await createTestApp({ config: { dataDir } });
    admin = (await t.login()).token;
    ({ token: owner, userId: ownerId } = await plainUser('13900000101'));
    ({ token: other } = await plainUser('13900000102'));
    t.ctx.jobs.handle('test.file', async (_job, { saveResultFile }) => {
      await saveResultFile({ fileName: '随访 名单.csv', contentType: 'text/csv', data: Buffer.from('id\n1\n') });
    });
    const hold = gate();
    t.ctx.jobs.handle('test.hold', async (_job, { signal }) => {
      await Promise.race([waitForAbort(signal), hold.opened]);
    });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('list, one job, cancel and download answer the owner; another user and the administrator get 404; anonymous 401', async () => {
    const job = await t.ctx.jobs.enqueue('test.file', {}, { ownerId });
    await until(t.ctx.jobs, job.jobId, (j) => j.state === 'done', 'finished');
    t.clock.advance(60_000);
    const running = await t.ctx.jobs.enqueue('test.hold', {}, { ownerId });
    await until(t.ctx.jobs, running.jobId, (j) => j.state === 'running', 'started');

    const list = await t.call(owner, 'GET', '/api/system/jobs/list?pageNum=1&pageSize=10');
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(2);
    expect(list.body.data.list[0]).toMatchObject({ jobId: running.jobId, kind: 'test.hold', state: 'running' });
    expect(list.body.data.list[1]).toMatchObject({
      jobId: job.jobId,
      state: 'done',
      progress: 100,
      resultFile: { fileName: '随访 名单.csv', size: 5 },
    });
    expect(list.body.data.list[1]).not.toHaveProperty('payload');
    const paged = await t.call(owner, 'GET', '/api/system/jobs/list?pageNo=2&pageSize=1');
    expect(paged.body.data).toMatchObject({ total: 2, list: [{ jobId: job.jobId }] });
    for (const token of [other, admin]) {
      const theirs = await t.call(token, 'GET', '/api/system/jobs/list');
      expect(theirs.body.data).toEqual({ list: [], total: 0 });
    }

    const one = `/api/system/jobs/${job.jobId}`;
    const download = `/api/system/jobs/${job.jobId}/result`;
    const cancel = `/api/system/jobs/${running.jobId}/cancel`;
    const matrix: Array<[string, string | null, number, number, number]> = [
      // who, token, one job, download, cancel
      ['owner', owner, 200, 200, 200],
      ['another user', other, 404, 404, 404],
      ['administrator', admin, 404, 404, 404],
      ['anonymous', null, 401, 401, 401],
    ];
    // The owner's row goes last: its cancel changes the job the others try.
    for (const [who, token, oneStatus, downloadStatus, cancelStatus] of [...matrix.slice(1), matrix[0]!]) {
      const headers = token ? { authorization: `Bearer ${token}` } : {};
      const got = await t.app.inject({ method: 'GET', url: one, headers });
      const file = await t.app.inject({ method: 'GET', url: download, headers });
      const cancelled = await t.app.inject({ method: 'POST', url: cancel, headers });
      expect([who, got.statusCode, file.statusCode, cancelled.statusCode]).toEqual([
        who,
        oneStatus,
        downloadStatus,
        cancelStatus,
      ]);
      if (cancelStatus === 200) {
        // Running: asked to stop, it stops at its handler's next safe point.
        expect(cancelled.json()).toMatchObject({ msg: '正在取消', data: { state: 'running', cancelRequested: true } });
      }
      if (downloadStatus === 200) {
        expect(file.body).toBe('id\n1\n');
        expect(file.headers['content-disposition']).toBe(
          `attachment; filename*=UTF-8''${encodeURIComponent('随访 名单.csv')}`,
        );
        expect(file.headers['x-content-type-options']).toBe('nosniff');
      } else if (downloadStatus === 404) {
        expect(file.json().msg).toBe('任务不存在');
      }
    }
    await until(t.ctx.jobs, running.jobId, (j) => j.state === 'cancelled', 'was cancelled');
    const again = await t.call(owner, 'POST', cancel);
    expect(again).toMatchObject({ status: 409, body: { msg: '任务已结束，无法取消' } });
    const noFile = await t.call(owner, 'GET', `/api/system/jobs/${running.jobId}/result`);
    expect(noFile.status).toBe(404);
    const unknown = await t.call(owner, 'GET', `/api/system/jobs/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    const malformed = await t.call(owner, 'GET', '/api/system/jobs/not-a-uuid');
    expect(malformed.status).toBe(400);
  });

  it('the OpenAPI document lists the job paths (from the same zod schemas)', async () => {
    const doc = await t.app.inject({
      method: 'GET',
      url: '/api/docs/json',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(Object.keys(doc.json().paths)).toEqual(
      expect.arrayContaining([
        '/api/system/jobs/list',
        '/api/system/jobs/{jobId}',
        '/api/system/jobs/{jobId}/cancel',
        '/api/system/jobs/{jobId}/result',
      ]),
    );
  });

  it('the test-only job kind and its route exist only with EDC_TEST_JOBS=1', async () => {
    const res = await t.call(owner, 'POST', '/api/system/jobs/test-run', { steps: 1, stepMs: 0 });
    expect(res.status).toBe(404);
  });
});
