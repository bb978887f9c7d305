import {
  buttonKey,
  QUALITY_JOB_KIND,
  QUALITY_MSG,
  qualityDashboardQuerySchema,
  qualityFindingsQuerySchema,
  qualityQueriesBodySchema,
  qualityRunBodySchema,
  qualityRunQuerySchema,
  qualityRunsQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { runQualityJob, type QualityJobPayload, type QualityJobResult } from './quality-run.job.js';
import * as quality from './quality.service.js';

const tags = ['数据核查'];
const module = '数据核查';
const studyPermission = buttonKey('business.quality');

/**
 * 数据核查 (issue 37). Every route needs the study key 数据核查; the findings are read under the caller's site scope
 * (the service filters by the patient's site), and a run started by a site-scoped member covers only their sites.
 */
export function qualityRoutes(app: App, ctx: AppContext) {
  ctx.jobs.handle<QualityJobPayload, QualityJobResult>(QUALITY_JOB_KIND, (job, tools) =>
    runQualityJob(ctx, job, tools),
  );

  app.post(
    '/api/business/quality/run',
    {
      schema: { tags, summary: '开始数据核查（后台任务）', body: qualityRunBodySchema },
      config: { study: fromBody, studyPermission, module, action: '开始核查' },
    },
    async (request) =>
      ok(await quality.startRun(ctx, requireUser(request), requireStudy(request), request.body), QUALITY_MSG.started),
  );
  app.get(
    '/api/business/quality/runs',
    {
      schema: { tags, summary: '数据核查记录', querystring: qualityRunsQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await quality.listRuns(ctx, requireStudy(request), pageRequest(request.query))),
  );
  app.get(
    '/api/business/quality/run',
    {
      schema: { tags, summary: '一次核查的结果（按规则计数）', querystring: qualityRunQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await quality.getRun(ctx, requireStudy(request), request.query.runId)),
  );
  app.get(
    '/api/business/quality/findings',
    {
      schema: { tags, summary: '核查结果明细', querystring: qualityFindingsQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) =>
      ok(await quality.listFindings(ctx, requireStudy(request), request.query, pageRequest(request.query))),
  );
  app.post(
    '/api/business/quality/queries',
    {
      schema: { tags, summary: '按核查结果批量发起质疑', body: qualityQueriesBodySchema },
      config: { study: fromBody, studyPermission, module, action: '批量发起质疑' },
    },
    async (request) => ok(await quality.raiseQueries(ctx, requireUser(request), requireStudy(request), request.body)),
  );
  app.get(
    '/api/business/quality/dashboard',
    {
      schema: { tags, summary: '数据质量看板（各中心、各规则的未处理结果）', querystring: qualityDashboardQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await quality.dashboard(ctx, requireStudy(request))),
  );
}
