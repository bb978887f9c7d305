import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as depts from './dept.service.js';
import { MAX_ROW_ID, idSchema, idTextSchema } from '../../http/ids.js';

const tags = ['机构管理'];
const module = '机构管理';
const deptBody = z.object({
  parentId: z.number().int().min(0).max(MAX_ROW_ID).default(0),
  deptName: z.string({ error: '请输入机构名称' }).trim().min(1, '请输入机构名称').max(50, '机构名称不可超过50字符'),
  orderNum: z.number().int().min(0).max(9999).default(0),
  leader: z.string().trim().max(30).nullish(),
  phone: z.string().trim().max(20).nullish(),
  status: z.union([z.literal(0), z.literal(1)]).default(0),
});
const idParam = z.object({ id: idTextSchema });

export function deptRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/dept/list',
    {
      schema: {
        tags,
        summary: '机构列表（平铺，按 parentId 成树）',
        querystring: z.object({
          deptName: z.string().optional(),
          status: z.coerce.number().int().min(0).max(1).optional(),
        }),
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
    { schema: { tags, body: deptBody }, config: { permission: 'sys:dept:add', module, action: '新增' } },
    async (request) => ok(await depts.createDept(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/dept',
    {
      schema: { tags, body: deptBody.extend({ deptId: idSchema }) },
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
