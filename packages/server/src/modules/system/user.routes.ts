import {
  userCreateSchema,
  userHomeBodySchema,
  userHomeQuerySchema,
  userIdQuerySchema,
  userListQuerySchema,
  userStatusBodySchema,
  userUpdateSchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import type { App } from '../../http/types.js';
import * as usersService from './user.service.js';

const tags = ['用户管理'];
const module = '用户管理';
const userIdQuery = userIdQuerySchema;

export function userRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/users',
    {
      schema: {
        tags,
        summary: '用户分页列表',
        querystring: userListQuerySchema,
      },
      config: { permission: 'sys:org:user' },
    },
    async (request) => ok(await usersService.listUsers(ctx, request.query, pageRequest(request.query))),
  );

  app.get(
    '/api/system/user',
    { schema: { tags, summary: '用户详情', querystring: userIdQuery }, config: { permission: 'sys:org:user' } },
    async (request) => ok(await usersService.getUser(ctx, request.query.userId)),
  );

  app.post(
    '/api/system/user',
    {
      schema: { tags, summary: '新增用户', body: userCreateSchema },
      config: { permission: 'sys:user:add', module, action: '新增' },
    },
    async (request) => ok(await usersService.createUser(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/user',
    {
      schema: { tags, summary: '修改用户', body: userUpdateSchema },
      config: { permission: 'sys:user:edit', module, action: '修改' },
    },
    async (request) => {
      await usersService.updateUser(ctx, requireUser(request), request.body);
      return ok(null, '修改成功');
    },
  );

  app.delete(
    '/api/system/user',
    {
      schema: { tags, summary: '删除用户', querystring: userIdQuery },
      config: { permission: 'sys:user:remove', module, action: '删除' },
    },
    async (request) => {
      await usersService.deleteUser(ctx, requireUser(request), request.query.userId);
      return ok(null, '删除成功');
    },
  );

  app.put(
    '/api/system/user/status',
    {
      schema: { tags, summary: '启用或停用用户', body: userStatusBodySchema },
      config: { permission: 'sys:user:edit', module, action: '修改状态' },
    },
    async (request) => {
      await usersService.setUserStatus(ctx, requireUser(request), request.body.userId, request.body.status);
      return ok(null, '操作成功');
    },
  );

  app.post(
    '/api/v1/SysUser/setHome',
    {
      schema: {
        tags,
        summary: '设置用户首页',
        querystring: userHomeQuerySchema,
        body: userHomeBodySchema,
      },
      config: { permission: 'sys:user:edit', module, action: '设置首页' },
    },
    async (request) => {
      await usersService.setHome(ctx, request.query.perm, request.body);
      return ok(null, '操作成功');
    },
  );
}
