import { idParamSchema, menuCreateBodySchema, menuListQuerySchema, menuUpdateBodySchema } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as menusService from './menu.service.js';

const tags = ['菜单管理'];
const module = '菜单管理';
const idParam = idParamSchema;

export function menuRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/menu/list',
    {
      schema: {
        tags,
        querystring: menuListQuerySchema,
      },
      config: { permission: 'sys:org:menu' },
    },
    async (request) => ok(await menusService.listMenus(ctx, request.query)),
  );

  app.get(
    '/api/system/menu/treeselect',
    { schema: { tags, summary: '菜单树（角色授权用）' }, config: { permission: 'sys:org:role' } },
    async () => ok(await menusService.menuTreeOptions(ctx)),
  );

  app.get(
    '/api/system/menu/roleMenuTreeselect/:id',
    { schema: { tags, summary: '角色的菜单树与已选菜单', params: idParam }, config: { permission: 'sys:org:role' } },
    async (request) => ok(await menusService.roleMenuTree(ctx, request.params.id)),
  );

  app.get(
    '/api/system/menu/:id',
    { schema: { tags, params: idParam }, config: { permission: 'sys:org:menu' } },
    async (request) => ok(await menusService.getMenu(ctx, request.params.id)),
  );

  app.post(
    '/api/system/menu',
    { schema: { tags, body: menuCreateBodySchema }, config: { permission: 'sys:menu:add', module, action: '新增' } },
    async (request) => ok(await menusService.createMenu(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/menu',
    {
      schema: { tags, body: menuUpdateBodySchema },
      config: { permission: 'sys:menu:edit', module, action: '修改' },
    },
    async (request) => ok(await menusService.updateMenu(ctx, request.body.menuId, request.body), '修改成功'),
  );

  app.delete(
    '/api/system/menu/:id',
    { schema: { tags, params: idParam }, config: { permission: 'sys:menu:remove', module, action: '删除' } },
    async (request) => {
      await menusService.deleteMenu(ctx, request.params.id);
      return ok(null, '删除成功');
    },
  );
}
