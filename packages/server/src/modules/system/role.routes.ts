import {
  idParamSchema,
  roleCreateBodySchema,
  roleIdQuerySchema,
  roleListQuerySchema,
  roleStatusBodySchema,
  roleUpdateBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import * as rolesService from './role.service.js';

const tags = ['角色管理'];
const module = '角色管理';
export function roleRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/role/list',
    {
      schema: {
        tags,
        querystring: roleListQuerySchema,
      },
      // The user dialog loads roles for its multi-select, so user managers may read them too.
      config: { permission: ['sys:org:role', 'sys:org:user'] },
    },
    async (request) => ok(await rolesService.listRoles(ctx, request.query, pageRequest(request.query))),
  );

  app.get(
    '/api/system/role/:id',
    { schema: { tags, params: idParamSchema }, config: { permission: 'sys:org:role' } },
    async (request) => ok(await rolesService.getRole(ctx, request.params.id)),
  );

  app.post(
    '/api/system/role',
    { schema: { tags, body: roleCreateBodySchema }, config: { permission: 'sys:role:add', module, action: '新增' } },
    async (request) => ok(await rolesService.createRole(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/role',
    {
      schema: { tags, body: roleUpdateBodySchema },
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
      schema: { tags, querystring: roleIdQuerySchema },
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
      schema: { tags, body: roleStatusBodySchema },
      config: { permission: 'sys:role:edit', module, action: '修改状态' },
    },
    async (request) => {
      await rolesService.setRoleStatus(ctx, request.body.roleId, request.body.status);
      return ok(null, '操作成功');
    },
  );
}
