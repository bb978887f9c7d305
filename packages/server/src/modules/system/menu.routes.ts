import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as menusService from './menu.service.js';
import { MAX_ROW_ID, idSchema, idTextSchema } from '../../http/ids.js';

const tags = ['菜单管理'];
const module = '菜单管理';
const idParam = z.object({ id: idTextSchema });
const menuBody = z.object({
  parentId: z.number().int().min(0).max(MAX_ROW_ID).default(0),
  type: z.enum(['M', 'C', 'F'], { error: '请选择菜单类型' }),
  code: z.string({ error: '请输入菜单编码' }).trim().min(1, '请输入菜单编码').max(100),
  perms: z.string().trim().max(100).nullish(),
  path: z.string().trim().max(200).nullish(),
  level: z.union([z.literal(0), z.literal(1)]).default(0),
  orderNum: z.number().int().min(0).max(9999).default(0),
  status: z.union([z.literal(0), z.literal(1)]).default(0),
  title: z.string({ error: '请输入菜单名称' }).trim().min(1, '请输入菜单名称').max(50),
  icon: z.string().trim().max(100).nullish(),
  hidden: z.boolean().default(false),
});

export function menuRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/system/menu/list',
    {
      schema: {
        tags,
        querystring: z.object({
          menuName: z.string().optional(),
          status: z.coerce.number().int().min(0).max(1).optional(),
        }),
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
    { schema: { tags, body: menuBody }, config: { permission: 'sys:menu:add', module, action: '新增' } },
    async (request) => ok(await menusService.createMenu(ctx, request.body), '新增成功'),
  );

  app.put(
    '/api/system/menu',
    {
      schema: { tags, body: menuBody.extend({ menuId: idSchema }) },
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
