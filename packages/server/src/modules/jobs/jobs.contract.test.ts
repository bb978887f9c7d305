import { jobSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractData, pageOf } from '../../test/contract.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { JOBS_PATH } from './jobs.routes.js';

/** The jobs' answers, as the routes give them, against core's contract (jobs-contract.ts). */

let t: TestApp;
let admin: string;
let adminId: number;

beforeAll(async () => {
  t = await createTestApp();
  const signedIn = await t.login();
  admin = signedIn.token;
  adminId = signedIn.user.userId;
  t.ctx.jobs.handle<unknown, { counted: number }>('contract.count', async (_job, { progress }) => {
    await progress(100, '已完成');
    return { counted: 1 };
  });
  t.ctx.jobs.handle('contract.wait', async (_job, { signal }) => {
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    return null;
  });
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('the jobs answer as core describes them', () => {
  it('a finished job, a cancelled one and the list', async () => {
    const done = await t.ctx.jobs.enqueue('contract.count', {}, { ownerId: adminId });
    for (let i = 0; i < 400 && (await t.ctx.jobs.get(done.jobId))?.state !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(contractData(jobSchema, await get(`${JOBS_PATH}/${done.jobId}`)).result).toEqual({ counted: 1 });

    const waiting = await t.ctx.jobs.enqueue('contract.wait', {}, { ownerId: adminId });
    contractData(jobSchema, await t.call(admin, 'POST', `${JOBS_PATH}/${waiting.jobId}/cancel`));
    const page = contractData(pageOf(jobSchema), await get(`${JOBS_PATH}/list?pageNum=1&pageSize=10`));
    expect(page.total).toBe(2);
  });
});
