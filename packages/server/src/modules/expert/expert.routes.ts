import { expertBodySchema, expertListQuerySchema, idParamSchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as expert from './expert.service.js';

const tags = ['医生管理'];
const module = '医生管理';

/**
 * Doctors of a study (医生管理, platform §7: expert create, read, update, delete). Reading needs membership;
 * changes need 管理医生. Patients read the list without signing in (GET /api/ignore/experts?studyId).
 */
export function expertRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/experts',
    { schema: { tags, summary: '医生列表（分页）', querystring: expertListQuerySchema }, config: { study: fromQuery } },
    async (request) =>
      ok(
        await expert.listExperts(ctx, requireStudy(request).studyId, request.query.keyword, pageRequest(request.query)),
      ),
  );
  app.get(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '医生详情', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await expert.getExpert(ctx, requireStudy(request), request.params.id)),
  );
  app.post(
    '/api/v1/expert',
    {
      schema: { tags, summary: '新增医生', body: expertBodySchema },
      config: { study: fromBody, studyPermission: expert.EXPERT_MANAGE, module, action: '新增医生' },
    },
    async (request) => ok(await expert.createExpert(ctx, requireStudy(request), request.body), '新增成功'),
  );
  app.put(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '修改医生', params: idParamSchema, body: expertBodySchema },
      config: { study: fromBody, studyPermission: expert.EXPERT_MANAGE, module, action: '修改医生' },
    },
    async (request) =>
      ok(await expert.updateExpert(ctx, requireStudy(request), request.params.id, request.body), '修改成功'),
  );
  app.delete(
    '/api/v1/expert/:id',
    {
      schema: { tags, summary: '删除医生', params: idParamSchema, querystring: studyIdQuery },
      config: { study: fromQuery, studyPermission: expert.EXPERT_MANAGE, module, action: '删除医生' },
    },
    async (request) => {
      await expert.deleteExpert(ctx, requireStudy(request), request.params.id);
      return ok(null, '删除成功');
    },
  );
  app.get(
    '/api/ignore/experts',
    {
      schema: {
        tags,
        summary: '医生列表（患者端，无需登录）',
        querystring: expertListQuerySchema,
      },
    },
    async (request) =>
      ok(await expert.listExperts(ctx, request.query.studyId, request.query.keyword, pageRequest(request.query))),
  );
}
