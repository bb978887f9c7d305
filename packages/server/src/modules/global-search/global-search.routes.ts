import { z } from 'zod';
import { SEARCH_KEY_MAX } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { idSchema } from '../../http/ids.js';
import type { App } from '../../http/types.js';
import { addDataChange } from './data-change.service.js';
import { searchAll } from './global-search.service.js';
// Knowledge articles and experts join the search (a source registers itself on import).
import './content-sources.js';

const tags = ['全局'];

const SCOPE_NAME = /^[A-Za-z][\w.-]{0,39}$/;

/** `scope`: a comma list of names (trimmed, empty entries dropped, duplicates removed), 1 to 20 of them. */
const scopeList = z
  .string()
  .max(500)
  .transform((text) => [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z
      .array(z.string().regex(SCOPE_NAME, '数据范围格式不正确'))
      .min(1, '请传入数据范围')
      .max(20, '数据范围不可超过20个'),
  );

/**
 * GET  /api/v1/base/other/searchall?key                      SHELL-33: grouped hits over what the caller may see
 * POST /api/v1/base/other/addsysdatachangeinfo { scope, studyId? }   SHELL-32: announce changed data scopes
 */
export function globalSearchRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/v1/base/other/searchall',
    {
      schema: {
        tags,
        summary: '全局搜索：项目、患者（编号，有权限时姓名）、CRF 等',
        querystring: z.object({ key: z.string().max(SEARCH_KEY_MAX).default('') }),
      },
    },
    async (request) => ok(await searchAll(ctx, requireUser(request), request.query.key)),
  );

  app.post(
    '/api/v1/base/other/addsysdatachangeinfo',
    {
      schema: {
        tags,
        summary: '登记变更的数据范围并通知其他在线客户端刷新',
        body: z.object({ scope: scopeList, studyId: idSchema.nullish() }),
      },
      // With a study, only its staff (or study:manage) may announce changes in it.
      config: { study: (request) => (request.body as { studyId?: number | null }).studyId ?? null },
    },
    async (request) =>
      ok(await addDataChange(ctx, requireUser(request), request.body.scope, request.body.studyId ?? null)),
  );
}
