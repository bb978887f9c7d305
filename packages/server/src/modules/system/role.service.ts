import { and, asc, count, eq, ilike, inArray, ne } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Tx } from '../../db/client.js';
import { menus, roleMenus, roles, userRoles } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { ensureAnAdministratorRemains } from './user.service.js';

export interface RoleInput {
  roleName: string;
  roleKey: string;
  roleSort: number;
  status: number;
  remark?: string | null;
  menuIds: number[];
}

const notFound = () => AppError.notFound('role.not_found', '角色不存在');

const roleColumns = {
  roleId: roles.roleId,
  roleName: roles.roleName,
  roleKey: roles.roleKey,
  roleSort: roles.roleSort,
  status: roles.status,
  remark: roles.remark,
  admin: roles.admin,
  createTime: roles.createdAt,
};

export async function listRoles(ctx: AppContext, filter: { roleName?: string; status?: number }, page: PageRequest) {
  const where = and(
    filter.roleName ? ilike(roles.roleName, `%${filter.roleName}%`) : undefined,
    filter.status !== undefined ? eq(roles.status, filter.status) : undefined,
  );
  return pagedQuery(
    ctx.db.select({ total: count() }).from(roles).where(where),
    ctx.db.select(roleColumns).from(roles).where(where).orderBy(asc(roles.roleSort), asc(roles.roleId)).$dynamic(),
    page,
  );
}

export async function getRole(ctx: AppContext, roleId: number) {
  const [row] = await ctx.db.select(roleColumns).from(roles).where(eq(roles.roleId, roleId));
  if (!row) throw notFound();
  const links = await ctx.db.select({ menuId: roleMenus.menuId }).from(roleMenus).where(eq(roleMenus.roleId, roleId));
  return { ...row, menuIds: links.map((l) => l.menuId) };
}

async function checkUnique(tx: Tx, input: RoleInput, selfId?: number) {
  const others = selfId !== undefined ? ne(roles.roleId, selfId) : undefined;
  const [byName] = await tx
    .select({ id: roles.roleId })
    .from(roles)
    .where(and(eq(roles.roleName, input.roleName), others));
  if (byName) throw AppError.conflict('role.name_taken', `角色名称“${input.roleName}”已存在`);
  const [byKey] = await tx
    .select({ id: roles.roleId })
    .from(roles)
    .where(and(eq(roles.roleKey, input.roleKey), others));
  if (byKey) throw AppError.conflict('role.key_taken', `权限字符“${input.roleKey}”已存在`);
}

async function replaceMenus(tx: Tx, roleId: number, menuIds: number[]) {
  const unique = [...new Set(menuIds)];
  if (unique.length > 0) {
    const found = await tx.select({ id: menus.menuId }).from(menus).where(inArray(menus.menuId, unique));
    if (found.length !== unique.length) throw AppError.badRequest('role.menu_missing', '菜单不存在');
  }
  await tx.delete(roleMenus).where(eq(roleMenus.roleId, roleId));
  if (unique.length > 0) await tx.insert(roleMenus).values(unique.map((menuId) => ({ roleId, menuId })));
}

export async function createRole(ctx: AppContext, input: RoleInput) {
  return ctx.db.transaction(async (tx) => {
    await checkUnique(tx, input);
    const [row] = await tx
      .insert(roles)
      .values({
        roleName: input.roleName,
        roleKey: input.roleKey,
        roleSort: input.roleSort,
        status: input.status,
        remark: input.remark ?? null,
      })
      .returning({ roleId: roles.roleId });
    await replaceMenus(tx, row!.roleId, input.menuIds);
    return row!;
  });
}

export async function updateRole(ctx: AppContext, roleId: number, input: RoleInput) {
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx.select({ admin: roles.admin }).from(roles).where(eq(roles.roleId, roleId));
    if (!existing) throw notFound();
    await checkUnique(tx, input, roleId);
    await tx
      .update(roles)
      .set({
        roleName: input.roleName,
        roleKey: input.roleKey,
        roleSort: input.roleSort,
        status: input.status,
        remark: input.remark ?? null,
        updatedAt: ctx.clock(),
      })
      .where(eq(roles.roleId, roleId));
    // The administrator role holds everything implicitly; its menu list is not edited.
    if (!existing.admin) await replaceMenus(tx, roleId, input.menuIds);
    await ensureAnAdministratorRemains(tx);
  });
}

export async function setRoleStatus(ctx: AppContext, roleId: number, status: number) {
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(roles)
      .set({ status, updatedAt: ctx.clock() })
      .where(eq(roles.roleId, roleId))
      .returning({ id: roles.roleId });
    if (updated.length === 0) throw notFound();
    await ensureAnAdministratorRemains(tx);
  });
}

export async function deleteRole(ctx: AppContext, roleId: number) {
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx.select({ admin: roles.admin }).from(roles).where(eq(roles.roleId, roleId));
    if (!existing) throw notFound();
    if (existing.admin) throw AppError.conflict('role.admin_protected', '管理员角色不允许删除');
    const [holder] = await tx
      .select({ id: userRoles.userId })
      .from(userRoles)
      .where(eq(userRoles.roleId, roleId))
      .limit(1);
    if (holder) throw AppError.conflict('role.in_use', '角色已分配用户，不能删除');
    await tx.delete(roles).where(eq(roles.roleId, roleId));
  });
}
