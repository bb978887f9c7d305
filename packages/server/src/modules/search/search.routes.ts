import { idParamSchema, searchBodySchema, searchTemplateSaveBodySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { studyOf } from '../../shared/study-of.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import { exportableCrfs, searchDics } from './search-dictionary.js';
import { createTemplate, deleteTemplate, listTemplates } from './search-templates.js';
import { search } from './search.service.js';

const tags = ['数据检索'];
const module = '数据检索';

/**
 * Data retrieval (platform §7 Search). Any member of the study may search; what is searchable and shown is
 * decided per form (view permission) and per identifier permission in the service. The search itself is a
 * read: marked readOnly so it is not an operation-log entry (its values are clinical data and never logged).
 */
export function searchRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/business/search/dics',
    {
      schema: {
        tags,
        summary: '检索条件字典：患者字段、可查看表单的变量、运算符、表单状态',
        querystring: studyIdQuery,
      },
      config: { study: fromQuery },
    },
    async (request) => ok(await searchDics(ctx, requireStudy(request))),
  );

  app.post(
    '/api/business/search/v2',
    {
      schema: {
        tags,
        summary: '数据检索：按条件组检索患者，分页返回所选列',
        body: searchBodySchema,
      },
      config: { study: fromBody, readOnly: true },
    },
    async (request) =>
      ok(
        await search(
          ctx,
          requireStudy(request),
          { conditions: request.body.conditions, columns: request.body.columns },
          pageRequest(request.body),
        ),
      ),
  );

  app.get(
    '/api/business/search/export/crfs',
    {
      schema: { tags, summary: '可导出的表单（可查看的表单及其阶段）', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await exportableCrfs(ctx, requireStudy(request))),
  );

  app.get(
    '/api/business/search/all_templates',
    {
      schema: { tags, summary: '检索模板：我的和项目内共享的', querystring: studyIdQuery },
      config: { study: fromQuery },
    },
    async (request) => ok(await listTemplates(ctx, requireUser(request), requireStudy(request))),
  );

  app.post(
    '/api/business/search/template',
    {
      schema: {
        tags,
        summary: '保存检索模板',
        body: searchTemplateSaveBodySchema,
      },
      config: { study: fromBody, module, action: '保存模板' },
    },
    async (request) =>
      ok(await createTemplate(ctx, requireUser(request), requireStudy(request), request.body), '保存成功'),
  );

  app.delete(
    '/api/business/search/template/:id',
    {
      schema: { tags, summary: '删除检索模板（创建人或项目管理员）', params: idParamSchema },
      config: {
        study: (r) => studyOf(ctx, 'searchTemplates', (r.params as { id: number }).id),
        module,
        action: '删除模板',
      },
    },
    async (request) => {
      await deleteTemplate(ctx, requireUser(request), requireStudy(request), request.params.id);
      return ok(null, '删除成功');
    },
  );
}
