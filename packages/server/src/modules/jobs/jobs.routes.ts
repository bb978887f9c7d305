import { z } from 'zod';
import { jobIdParamSchema, jobListQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import type { JobView } from './job-queue.js';
import { TEST_JOB_KIND, testJobsEnabled } from './test-jobs.js';

/** Where the job routes live: one user's own jobs, whatever study they belong to. */
export const JOBS_PATH = '/api/system/jobs';

/** 404 for anyone but the owner, administrators included: a job's existence is its owner's business. */
function notFound() {
  return AppError.notFound('job.not_found', '任务不存在');
}

/** The owner's view: everything but the payload, which is the handler's input and stays on the server. */
function shown(job: JobView) {
  return {
    jobId: job.jobId,
    kind: job.kind,
    studyId: job.studyId,
    state: job.state,
    progress: job.progress,
    message: job.message,
    error: job.error,
    cancelRequested: job.cancelRequested,
    result: job.result,
    resultFile: job.resultFile,
    attempts: job.attempts,
    createTime: job.createdAt.toISOString(),
    startTime: job.startedAt?.toISOString() ?? null,
    finishTime: job.finishedAt?.toISOString() ?? null,
  };
}

export function jobsRoutes(app: App, ctx: AppContext) {
  const ownJob = async (userId: number, jobId: string) => {
    const job = await ctx.jobs.get(jobId);
    if (!job || job.ownerId !== userId) throw notFound();
    return job;
  };

  app.get(
    `${JOBS_PATH}/list`,
    {
      schema: {
        tags: ['任务'],
        summary: '我的任务分页列表（新的在前）',
        querystring: jobListQuerySchema,
      },
    },
    async (request) => {
      const page = await ctx.jobs.list(requireUser(request).userId, pageRequest(request.query));
      return ok({ list: page.list.map(shown), total: page.total });
    },
  );

  app.get(
    `${JOBS_PATH}/:jobId`,
    { schema: { tags: ['任务'], summary: '我的一个任务', params: jobIdParamSchema } },
    async (request) => ok(shown(await ownJob(requireUser(request).userId, request.params.jobId))),
  );

  app.post(
    `${JOBS_PATH}/:jobId/cancel`,
    {
      schema: {
        tags: ['任务'],
        summary: '取消任务（排队中的不再开始；运行中的在下一个安全点停止）',
        params: jobIdParamSchema,
      },
      config: { module: '任务' },
    },
    async (request) => {
      const job = await ownJob(requireUser(request).userId, request.params.jobId);
      if (job.state !== 'queued' && job.state !== 'running') {
        throw AppError.conflict('job.finished', '任务已结束，无法取消');
      }
      const now = (await ctx.jobs.cancel(job.jobId)) ?? job;
      // A running job stops at its handler's next safe point: the answer says so until it has.
      return ok(shown(now), now.state === 'cancelled' ? '已取消' : '正在取消');
    },
  );

  app.get(
    `${JOBS_PATH}/:jobId/result`,
    { schema: { tags: ['任务'], summary: '下载任务的结果文件（仅任务本人）', params: jobIdParamSchema } },
    async (request, reply) => {
      const job = await ownJob(requireUser(request).userId, request.params.jobId);
      const file = job.resultFile ? await ctx.jobs.openResult(job.jobId) : null;
      if (!file) throw AppError.notFound('job.no_result', '结果文件不存在或已过期');
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
        .send(file.stream);
    },
  );

  if (testJobsEnabled()) {
    // Browser tests only (EDC_TEST_JOBS=1): starts the counting job for the signed-in user.
    app.post(
      `${JOBS_PATH}/test-run`,
      {
        schema: {
          tags: ['任务'],
          summary: '（仅测试环境）开始一个计数测试任务',
          body: z.object({ steps: z.number().int().min(1).max(100), stepMs: z.number().int().min(0).max(5000) }),
        },
        config: { module: '任务' },
      },
      async (request) =>
        ok(shown(await ctx.jobs.enqueue(TEST_JOB_KIND, request.body, { ownerId: requireUser(request).userId }))),
    );
  }
}
