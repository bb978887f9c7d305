import { followDraftBodySchema, followDraftPublishBodySchema, followDraftQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import * as drafts from './follow-draft.service.js';

const tags = ['随访'];
const module = '随访管理';
/** Drafts are plan edits: the plan editing routes' permission. */
const PLAN = 'btn:business.follow.plan';

/** A production study's follow-up plan draft (草稿), its impact and publishing it as an amendment (issue 36). */
export function followDraftRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/follow/draft',
    {
      schema: { tags, summary: '随访计划草稿（无草稿时为 null）', querystring: followDraftQuerySchema },
      config: { study: fromQuery },
    },
    async (request) => ok(await drafts.getDraft(ctx, request.query.studyId, request.query.planId)),
  );
  app.put(
    '/api/business/follow/draft',
    {
      schema: {
        tags,
        summary: '保存随访计划草稿（上线项目；计划与患者随访不变，发布后生效）',
        body: followDraftBodySchema,
      },
      config: { study: fromBody, module, action: '保存计划草稿', studyPermission: PLAN },
    },
    async (request) => ok(await drafts.saveDraft(ctx, requireUser(request), request.body), '保存成功'),
  );
  app.delete(
    '/api/business/follow/draft',
    {
      schema: { tags, summary: '放弃随访计划草稿', querystring: followDraftQuerySchema },
      config: { study: fromQuery, module, action: '放弃计划草稿', studyPermission: PLAN },
    },
    async (request) =>
      ok(
        await drafts.discardDraft(ctx, requireUser(request), request.query.studyId, request.query.planId),
        '已放弃草稿',
      ),
  );
  app.get(
    '/api/business/follow/draft/impact',
    {
      schema: {
        tags,
        summary: '发布草稿的影响：已有患者哪些随访改期、新增、删除，哪些不变（已完成的不动）',
        querystring: followDraftQuerySchema,
      },
      config: { study: fromQuery, studyPermission: PLAN },
    },
    async (request) => ok(await drafts.draftImpact(ctx, requireStudy(request), request.query.planId)),
  );
  app.post(
    '/api/business/follow/draft/publish',
    {
      schema: {
        tags,
        summary: '发布随访计划草稿（方案修订）：计划更新，已有患者未完成的随访按影响报告重排',
        body: followDraftPublishBodySchema,
      },
      config: { study: fromBody, module, action: '发布计划修订', studyPermission: PLAN },
    },
    async (request) => ok(await drafts.publishDraft(ctx, requireUser(request), request.body), '发布成功'),
  );
}
