import { sysConfigQuerySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import { listConfigFields } from './config.service.js';

export function configRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/base/sysconfig/getbasesysconfiglist',
    {
      schema: {
        tags: ['系统配置'],
        summary: '系统配置项（如 SystemTitle、Version）',
        querystring: sysConfigQuerySchema,
      },
      config: { allowWhilePasswordMustChange: true },
    },
    async (request) => ok(await listConfigFields(ctx, request.query.key)),
  );
}
