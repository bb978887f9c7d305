import { and, asc, eq, ilike, ne } from 'drizzle-orm';
import { buildTree } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { menus, roleMenus, roles } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { toMenuNode } from '../auth/auth.service.js';

export interface MenuInput {
  parentId: number;
  type: 'M' | 'C' | 'F';
  code: string;
  perms?: string | null;
  path?: string | null;
  level: 0 | 1;
  orderNum: number;
  status: number;
  title: string;
  icon?: string | null;
  hidden: boolean;
}

const notFound = () => AppError.notFound('menu.not_found', '菜单不存在');

/** A flat menu row: the node's fields (meta included) and its title, icon and hidden flag at the top level for forms. */
function toMenuRow(m: typeof menus.$inferSelect) {
  return { ...toMenuNode(m), title: m.title, icon: m.icon, hidden: m.hidden, createTime: m.createdAt };
}

export async function listMenus(ctx: AppContext, filter: { menuName?: string; status?: number }) {
  const rows = await ctx.db
    .select()
    .from(menus)
    .where(
      and(
        filter.menuName ? ilike(menus.title, `%${filter.menuName}%`) : undefined,
        filter.status !== undefined ? eq(menus.status, filter.status) : undefined,
      ),
    )
    .orderBy(asc(menus.parentId), asc(menus.orderNum), asc(menus.menuId));
  return rows.map(toMenuRow);
}

export async function getMenu(ctx: AppContext, menuId: number) {
  const [row] = await ctx.db.select().from(menus).where(eq(menus.menuId, menuId));
  if (!row) throw notFound();
  return toMenuRow(row);
}

interface TreeOption {
  id: number;
  label: string;
  parentId: number;
  children?: TreeOption[];
}

/** The menu tree as the role dialog's checkable tree wants it. */
export async function menuTreeOptions(ctx: AppContext) {
  const rows = await ctx.db
    .select({ id: menus.menuId, label: menus.title, parentId: menus.parentId })
    .from(menus)
    .orderBy(asc(menus.orderNum), asc(menus.menuId));
  return buildTree<TreeOption>(rows, (r) => r.id);
}

export async function roleMenuTree(ctx: AppContext, roleId: number) {
  const [role] = await ctx.db.select({ admin: roles.admin }).from(roles).where(eq(roles.roleId, roleId));
  if (!role) throw AppError.notFound('role.not_found', '角色不存在');
  const menusTree = await menuTreeOptions(ctx);
  const checked = role.admin
    ? (await ctx.db.select({ menuId: menus.menuId }).from(menus)).map((m) => m.menuId)
    : (await ctx.db.select({ menuId: roleMenus.menuId }).from(roleMenus).where(eq(roleMenus.roleId, roleId))).map(
        (m) => m.menuId,
      );
  return { menus: menusTree, checkedKeys: checked };
}

async function checkMenu(ctx: AppContext, input: MenuInput, selfId?: number) {
  if (input.parentId !== 0) {
    const [parent] = await ctx.db.select().from(menus).where(eq(menus.menuId, input.parentId));
    if (!parent) throw AppError.badRequest('menu.parent_missing', '上级菜单不存在');
    if (parent.type === 'F') throw AppError.badRequest('menu.parent_button', '按钮下不能再添加菜单');
    if (selfId !== undefined && input.parentId === selfId) {
      throw AppError.badRequest('menu.parent_self', '上级菜单不能选择自己');
    }
  }
  const [clash] = await ctx.db
    .select({ id: menus.menuId })
    .from(menus)
    .where(and(eq(menus.code, input.code), selfId !== undefined ? ne(menus.menuId, selfId) : undefined));
  if (clash) throw AppError.conflict('menu.code_taken', `菜单编码“${input.code}”已存在`);
}

export async function createMenu(ctx: AppContext, input: MenuInput) {
  await checkMenu(ctx, input);
  const [row] = await ctx.db.insert(menus).values(input).returning();
  return toMenuRow(row!);
}

export async function updateMenu(ctx: AppContext, menuId: number, input: MenuInput) {
  await getMenu(ctx, menuId);
  await checkMenu(ctx, input, menuId);
  const [row] = await ctx.db
    .update(menus)
    .set({ ...input, updatedAt: ctx.clock() })
    .where(eq(menus.menuId, menuId))
    .returning();
  return toMenuRow(row!);
}

export async function deleteMenu(ctx: AppContext, menuId: number) {
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx.select({ id: menus.menuId }).from(menus).where(eq(menus.menuId, menuId));
    if (!row) throw notFound();
    const [child] = await tx.select({ id: menus.menuId }).from(menus).where(eq(menus.parentId, menuId)).limit(1);
    if (child) throw AppError.conflict('menu.has_children', '存在子菜单，不允许删除');
    await tx.delete(menus).where(eq(menus.menuId, menuId));
  });
}
