import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { pageRequest, pagingQuery } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import * as rolesService from './role.service.js';
import { idSchema, idTextSchema } from '../../http/ids.js';

const tags = ['角色管理'];
const module = '角色管理';
const status = z.union([z.literal(0), z.literal(1)]);
const roleBody = z.object({
  roleName: z.string({ error: '请输入角色名称' }).trim().min(1, '请输入角色名称').max(30, '角色名称不可超过30字符'),
  roleKey: z
    .string({ error: '请输入权限字符' })
    .trim()
    .min(1, '请输入权限字符')
    .max(50)
    .regex(/^[A-Za-z][\w:.-]*$/, '权限字符只能包含字母、数字和 _ : . -，且以字母开头'),
  roleSort: z.number().int().min(0).max(9999).default(0),
  status: status.default(0),
  remark: z.string().max(200).nullish(),
  menuIds: z.array(idSchema).max(2000).default([]),
});

export function roleRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/role/list',
    {
      schema: {
        tags,
        querystring: z.object({
          ...pagingQuery,
          roleName: z.string().trim().optional(),
          status: z.coerce.number().int().min(0).max(1).optional(),
        }),
      },
      // The user dialog loads roles for its multi-select, so user managers may read them too.
      config: { permission: ['sys:org:role', 'sys:org:user'] },
    },
    async (request) => ok(await rolesService.listRoles(ctx, request.query, pageRequest(request.query))),
  );

  app.get(
    '/api/system/role/:id',
    { schema: { tags, params: z.object({ id: idTextSchema }) }, config: { permission: 'sys:org:role' } },
    async (request) => ok(await rolesService.getRole(ctx, request.params.id)),
  );

  app.post(
    '/api/system/role',
    { schema: { tags, body: roleBody }, config: { permission: 'sys:role:add', module, action: '新增' } },
    async (request) => ok(await rolesService.createRole(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/role',
    {
      schema: { tags, body: roleBody.extend({ roleId: idSchema }) },
      config: { permission: 'sys:role:edit', module, action: '修改' },
    },
    async (request) => {
      await rolesService.updateRole(ctx, request.body.roleId, request.body);
      return ok(null, '修改成功');
    },
  );

  app.delete(
    '/api/system/role',
    {
      schema: { tags, querystring: z.object({ roleId: idTextSchema }) },
      config: { permission: 'sys:role:remove', module, action: '删除' },
    },
    async (request) => {
      await rolesService.deleteRole(ctx, request.query.roleId);
      return ok(null, '删除成功');
    },
  );

  app.put(
    '/api/system/role/status',
    {
      schema: { tags, body: z.object({ roleId: idSchema, status }) },
      config: { permission: 'sys:role:edit', module, action: '修改状态' },
    },
    async (request) => {
      await rolesService.setRoleStatus(ctx, request.body.roleId, request.body.status);
      return ok(null, '操作成功');
    },
  );
}
