import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { ALL_PERMISSIONS } from '@ecrf/core';
import type { Db } from '../db/client.js';
import { menus, roleMenus, roles, userRoles } from '../db/schema/index.js';

// A user's system roles and permission codes: read by the request's auth hook, realtime and API tokens, apart
// from the auth module's sign-in and menu routes.

/** Enabled roles of a user, and whether one of them is the administrator role. */
export async function enabledRoles(db: Db, userId: number) {
  return db
    .select({ roleId: roles.roleId, roleKey: roles.roleKey, roleName: roles.roleName, admin: roles.admin })
    .from(userRoles)
    .innerJoin(roles, eq(roles.roleId, userRoles.roleId))
    .where(and(eq(userRoles.userId, userId), eq(roles.status, 0)));
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
