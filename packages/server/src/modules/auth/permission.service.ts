import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { ALL_PERMISSIONS } from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { menus, roleMenus, roles, userRoles } from '../../db/schema/index.js';

/** Enabled roles of a user, and whether one of them is the administrator role. */
async function enabledRoles(db: Db, userId: number) {
  return db
    .select({ roleId: roles.roleId, roleKey: roles.roleKey, roleName: roles.roleName, admin: roles.admin })
    .from(userRoles)
    .innerJoin(roles, eq(roles.roleId, userRoles.roleId))
    .where(and(eq(userRoles.userId, userId), eq(roles.status, 0)));
}

export async function rolesOf(db: Db, userId: number) {
  return enabledRoles(db, userId);
}

/**
 * The permission codes a user holds: the perms of every enabled menu node its enabled roles
 * grant. The administrator role holds every permission, including ones added later.
 */
export async function permissionsOf(db: Db, userId: number): Promise<{ admin: boolean; permissions: string[] }> {
  const held = await enabledRoles(db, userId);
  const admin = held.some((r) => r.admin);
  if (admin) return { admin, permissions: [ALL_PERMISSIONS] };
  if (held.length === 0) return { admin, permissions: [] };
  const rows = await db
    .selectDistinct({ perms: menus.perms })
    .from(roleMenus)
    .innerJoin(menus, eq(menus.menuId, roleMenus.menuId))
    .where(
      and(
        inArray(
          roleMenus.roleId,
          held.map((r) => r.roleId),
        ),
        eq(menus.status, 0),
        isNotNull(menus.perms),
      ),
    );
  return { admin, permissions: rows.map((r) => r.perms!).filter((p) => p.length > 0) };
}

/** Menu ids a user may see: granted nodes plus their ancestors, so a granted page is never orphaned. */
export async function grantedMenuIds(db: Db, userId: number, admin: boolean): Promise<Set<number>> {
  const all = await db.select({ menuId: menus.menuId, parentId: menus.parentId, status: menus.status }).from(menus);
  const enabled = new Map(all.filter((m) => m.status === 0).map((m) => [m.menuId, m.parentId]));
  let granted: number[];
  if (admin) {
    granted = [...enabled.keys()];
  } else {
    const held = await enabledRoles(db, userId);
    if (held.length === 0) return new Set();
    const rows = await db
      .selectDistinct({ menuId: roleMenus.menuId })
      .from(roleMenus)
      .where(
        inArray(
          roleMenus.roleId,
          held.map((r) => r.roleId),
        ),
      );
    granted = rows.map((r) => r.menuId).filter((id) => enabled.has(id));
  }
  const result = new Set<number>();
  for (const id of granted) {
    let current: number | undefined = id;
    while (current && enabled.has(current) && !result.has(current)) {
      result.add(current);
      current = enabled.get(current);
    }
  }
  return result;
}
