import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { menus, roleMenus } from '../../db/schema/index.js';
import { enabledRoles } from '../../shared/user-permissions.js';

export async function rolesOf(db: Db, userId: number) {
  return enabledRoles(db, userId);
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
