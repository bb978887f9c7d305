import { deptCreateBodySchema, deptListQuerySchema, deptUpdateBodySchema, idParamSchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as depts from './dept.service.js';

const tags = ['机构管理'];
const module = '机构管理';
const idParam = idParamSchema;

export function deptRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/dept/list',
    {
      schema: {
        tags,
        summary: '机构列表（平铺，按 parentId 成树）',
        querystring: deptListQuerySchema,
      },
      // The user page needs the tree for its department picker and filter.
      config: { permission: ['sys:org:organization', 'sys:org:user'] },
    },
    async (request) => ok(await depts.listDepts(ctx, request.query)),
  );

  app.get(
    '/api/system/dept/:id',
    { schema: { tags, params: idParam }, config: { permission: 'sys:org:organization' } },
    async (request) => ok(await depts.getDept(ctx, request.params.id)),
  );

  app.post(
    '/api/system/dept',
    { schema: { tags, body: deptCreateBodySchema }, config: { permission: 'sys:dept:add', module, action: '新增' } },
    async (request) => ok(await depts.createDept(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/dept',
    {
      schema: { tags, body: deptUpdateBodySchema },
      config: { permission: 'sys:dept:edit', module, action: '修改' },
    },
    async (request) => ok(await depts.updateDept(ctx, request.body.deptId, request.body), '修改成功'),
  );

  app.delete(
    '/api/system/dept/:id',
    { schema: { tags, params: idParam }, config: { permission: 'sys:dept:remove', module, action: '删除' } },
    async (request) => {
      await depts.deleteDept(ctx, request.params.id);
      return ok(null, '删除成功');
    },
  );
}
