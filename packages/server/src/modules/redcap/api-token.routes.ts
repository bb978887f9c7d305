import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { App } from '../../http/types.js';
import { apiTokenCreateBodySchema, idParamSchema } from '@ecrf/core';
import * as tokens from './api-token.service.js';

const tags = ['个人中心'];
const BASE = '/api/system/user/profile/apiToken';

/** The caller's own REDCap API tokens (personal page): list, studies they may be made for, create, revoke. */
export function apiTokenRoutes(app: App, ctx: AppContext) {
  app.get(BASE, { schema: { tags, summary: '我的API令牌' } }, async (request) =>
    ok(await tokens.listTokens(ctx, requireUser(request))),
  );

  app.get(`${BASE}/studies`, { schema: { tags, summary: '可创建API令牌的项目' } }, async (request) =>
    ok(await tokens.tokenStudies(ctx, requireUser(request))),
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: '创建API令牌（令牌只在此次返回）',
        body: apiTokenCreateBodySchema,
      },
      config: { module: '个人中心', action: '创建API令牌' },
    },
    async (request) =>
      ok(
        await tokens.createToken(
          ctx,
          (userId, permissions, studyId) => studyAccessOf(ctx, userId, permissions, studyId),
          requireUser(request),
          request.body.studyId,
        ),
        '创建成功',
      ),
  );

  app.delete(
    `${BASE}/:id`,
    {
      schema: { tags, summary: '撤销API令牌', params: idParamSchema },
      config: { module: '个人中心', action: '撤销API令牌' },
    },
    async (request) => {
      await tokens.revokeToken(ctx, requireUser(request), request.params.id);
      return ok(null, '已撤销');
    },
  );
}
