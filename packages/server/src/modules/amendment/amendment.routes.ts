import type { FastifyReply } from 'fastify';
import {
  amendmentImpactRecordsQuerySchema,
  amendmentMigrateBodySchema,
  crfDraftBodySchema,
  crfDraftImpactRecordsQuerySchema,
  crfDraftPublishBodySchema,
  crfDraftQuerySchema,
  idParamSchema,
  type MigrationResult,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import {
  CRF_MIGRATION_JOB_KIND,
  runMigrationJob,
  startMigration,
  type MigrationJobPayload,
} from './amendment-migration.service.js';
import * as amendmentService from './amendment.service.js';
import * as drafts from './crf-draft.service.js';

const crfTags = ['CRF管理'];
const tags = ['方案修订'];
const crfModule = 'CRF管理';
const module = '方案修订';

function sendFile(reply: FastifyReply, file: { fileName: string; type: string; data: Buffer }) {
  return reply
    .header('content-type', file.type)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
    .send(file.data);
}

/**
 * CRF drafts and amendments (issue 36). The draft routes sit with the CRF library (study:crf, like uploading a
 * CRF); the amendments' with the study's business routes. The study guard checks membership; the services check
 * the form's view key before any value is shown.
 */
export function amendmentRoutes(app: App, ctx: AppContext) {
  ctx.jobs.handle<MigrationJobPayload, MigrationResult>(CRF_MIGRATION_JOB_KIND, (job, tools) =>
    runMigrationJob(ctx, job, tools),
  );

  app.get(
    '/api/system/crf/draft',
    {
      schema: { tags: crfTags, summary: 'CRF的草稿（无则为 null）', querystring: crfDraftQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await drafts.getDraft(ctx, request.query.studyId, request.query.crfId)),
  );
  app.post(
    '/api/system/crf/draft',
    {
      schema: { tags: crfTags, summary: '打开CRF草稿（复制当前版本）', body: crfDraftBodySchema },
      config: { study: fromBody, permission: 'study:crf', module: crfModule, action: '打开草稿' },
    },
    async (request) =>
      ok(await drafts.openDraft(ctx, requireUser(request), request.body.studyId, request.body.crfId), '草稿已打开'),
  );
  app.delete(
    '/api/system/crf/draft',
    {
      schema: { tags: crfTags, summary: '放弃CRF草稿', querystring: crfDraftQuerySchema },
      config: { study: fromQuery, permission: 'study:crf', module: crfModule, action: '放弃草稿' },
    },
    async (request) => {
      await drafts.discardDraft(ctx, requireUser(request), request.query.studyId, request.query.crfId);
      return ok(null, '草稿已放弃');
    },
  );
  app.get(
    '/api/system/crf/draft/impact',
    {
      schema: { tags: crfTags, summary: '发布草稿的影响报告（全部在用记录）', querystring: crfDraftQuerySchema },
      config: { study: fromQuery, permission: 'study:crf' },
    },
    async (request) => {
      const { impact } = await amendmentService.draftImpactOf(ctx, request.query.studyId, request.query.crfId);
      return ok(impact.summary);
    },
  );
  app.get(
    '/api/system/crf/draft/impact/records',
    {
      schema: { tags: crfTags, summary: '影响报告明细', querystring: crfDraftImpactRecordsQuerySchema },
      config: { study: fromQuery, permission: 'study:crf' },
    },
    async (request) => {
      const q = request.query;
      const { impact } = await amendmentService.draftImpactOf(ctx, q.studyId, q.crfId);
      return ok(await amendmentService.drillDown(ctx, requireStudy(request), impact, q, pageRequest(q)));
    },
  );
  app.get(
    '/api/system/crf/draft/impact/export',
    {
      schema: { tags: crfTags, summary: '下载影响报告（Excel）', querystring: crfDraftQuerySchema },
      config: { study: fromQuery, permission: 'study:crf', module: crfModule, action: '下载影响报告' },
    },
    async (request, reply) => {
      const { title, impact } = await amendmentService.draftImpactOf(ctx, request.query.studyId, request.query.crfId);
      return sendFile(reply, await amendmentService.impactWorkbook(ctx, requireStudy(request), title, impact));
    },
  );
  app.post(
    '/api/system/crf/draft/publish',
    {
      schema: { tags: crfTags, summary: '发布CRF草稿（记为方案修订）', body: crfDraftPublishBodySchema },
      config: { study: fromBody, permission: 'study:crf', module: crfModule, action: '发布草稿' },
    },
    async (request) => {
      const { studyId, crfId, name } = request.body;
      return ok(await drafts.publishDraft(ctx, requireUser(request), studyId, crfId, name), '发布成功');
    },
  );

  app.get(
    '/api/business/amendments',
    { schema: { tags, summary: '方案修订列表', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await amendmentService.listAmendments(ctx, request.query.studyId)),
  );
  app.get(
    '/api/business/amendment/:id/impact',
    {
      schema: {
        tags,
        summary: '方案修订的影响报告（尚未迁移的记录）',
        params: idParamSchema,
        querystring: studyIdQuery,
      },
      config: { study: fromQuery, permission: 'study:crf' },
    },
    async (request) => {
      const { impact } = await amendmentService.amendmentImpactOf(ctx, request.query.studyId, request.params.id);
      return ok(impact.summary);
    },
  );
  app.get(
    '/api/business/amendment/:id/impact/records',
    {
      schema: {
        tags,
        summary: '方案修订的影响报告明细',
        params: idParamSchema,
        querystring: amendmentImpactRecordsQuerySchema,
      },
      config: { study: fromQuery, permission: 'study:crf' },
    },
    async (request) => {
      const q = request.query;
      const { impact } = await amendmentService.amendmentImpactOf(ctx, q.studyId, request.params.id);
      return ok(await amendmentService.drillDown(ctx, requireStudy(request), impact, q, pageRequest(q)));
    },
  );
  app.get(
    '/api/business/amendment/:id/impact/export',
    {
      schema: { tags, summary: '下载方案修订的影响报告（Excel）', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery, permission: 'study:crf', module, action: '下载影响报告' },
    },
    async (request, reply) => {
      const { title, impact } = await amendmentService.amendmentImpactOf(ctx, request.query.studyId, request.params.id);
      return sendFile(reply, await amendmentService.impactWorkbook(ctx, requireStudy(request), title, impact));
    },
  );
  app.post(
    '/api/business/amendment/migrate',
    {
      schema: { tags, summary: '迁移记录到方案修订的版本（后台任务）', body: amendmentMigrateBodySchema },
      config: { study: fromBody, permission: 'study:crf', module, action: '迁移记录' },
    },
    async (request) =>
      ok(
        await startMigration(ctx, requireUser(request), requireStudy(request), request.body),
        '已开始迁移，请在任务列表中查看进度',
      ),
  );
}
