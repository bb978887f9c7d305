import { exportLogQuerySchema, exportV2BodySchema, exportV3BodySchema, exportWaitQuerySchema } from '@ecrf/core';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { App } from '../../http/types.js';
import { jobSummary, type JobView } from '../jobs/job-queue.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import * as exportService from './export.service.js';

const tags = ['数据导出'];
const module = '数据导出';
/** `?wait=true`: how long the POST waits for a small export before answering the job instead of the file. */
const WAIT_MS = 30_000;

/**
 * The answer of an export POST: the job (the browser follows it in the 任务 drawer), or with `?wait=true` the
 * file itself when the job ends within 30 s (the spec's "file download" for scripts and small studies).
 */
async function answer(ctx: AppContext, reply: FastifyReply, job: JobView, wait: boolean) {
  if (wait) {
    const ended = await exportService.waitForJob(ctx, job.jobId, WAIT_MS);
    if (ended?.state === 'done') {
      const file = await ctx.jobs.openResult(job.jobId);
      if (file) {
        return reply
          .header('content-type', file.contentType)
          .header('content-length', String(file.size))
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('x-job-id', job.jobId)
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
          .send(file.stream);
      }
    }
    if (ended?.state === 'failed') return ok(jobSummary(ended), ended.error ?? '导出失败');
    return ok(jobSummary(ended ?? job), '导出仍在进行，请在任务列表中查看进度并下载');
  }
  return ok(jobSummary(job), '已开始导出，请在任务列表中查看进度并下载');
}

/**
 * Data export (platform §7 Search, SRCH-05): v2 exports the patients of the current search, v3 the whole study;
 * both run as a background job whose result file its owner downloads from the 任务 drawer
 * (GET /api/system/jobs/{jobId}/result), kept 7 days. Any member may export the forms they may view.
 */
export function exportRoutes(app: App, ctx: AppContext) {
  ctx.jobs.handle<exportService.ExportJobPayload>(exportService.EXPORT_JOB_KIND, (job, tools) =>
    exportService.runExport(ctx, job, tools, (userId, permissions, studyId) =>
      studyAccessOf(ctx, userId, permissions, studyId),
    ),
  );

  app.post(
    '/api/v2/business/search/export',
    {
      schema: {
        tags,
        summary: '导出检索结果中的患者（后台任务；?wait=true 时小文件直接下载）',
        body: exportV2BodySchema,
        querystring: exportWaitQuerySchema,
      },
      config: { study: fromBody, module, action: '导出检索结果' },
    },
    async (request, reply) => {
      const job = await exportService.requestExport(
        ctx,
        requireUser(request),
        requireStudy(request),
        'v2',
        request.body,
      );
      return answer(ctx, reply, job, request.query.wait === 'true');
    },
  );

  app.post(
    '/api/v3/business/search/export',
    {
      schema: {
        tags,
        summary: '导出整个项目的数据（后台任务；?wait=true 时小文件直接下载）',
        body: exportV3BodySchema,
        querystring: exportWaitQuerySchema,
      },
      config: { study: fromBody, module, action: '导出项目数据' },
    },
    async (request, reply) => {
      const job = await exportService.requestExport(
        ctx,
        requireUser(request),
        requireStudy(request),
        'v3',
        request.body,
      );
      return answer(ctx, reply, job, request.query.wait === 'true');
    },
  );

  app.get(
    '/api/business/search/export/log',
    {
      schema: {
        tags,
        summary: '导出记录（项目管理员：全部；其他成员：本人的）',
        querystring: exportLogQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) =>
      ok(
        await exportService.listExportLog(ctx, requireUser(request), requireStudy(request), pageRequest(request.query)),
      ),
  );
}
