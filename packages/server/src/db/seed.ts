import crypto from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import { hashPassword } from '../shared/password.js';
import type { Db } from './client.js';
import { departments, menus, roles, sysConfigs, userRoles, users } from './schema/index.js';
import {
  ADMIN_ROLE,
  ADMIN_USER_NAME,
  DEFAULT_SYSTEM_TITLE,
  MAIN_MENUS,
  PROJECT_MENUS,
  ROOT_DEPT_NAME,
  type SeedMenu,
} from './seed-data.js';

export interface SeedResult {
  /** Set only when the administrator was created with a generated password. */
  generatedAdminPassword?: string;
  adminCreated: boolean;
}

/** Adds what is missing and never overwrites what an administrator changed. Safe to run at every start. */
export async function seed(db: Db, opts: { adminPassword?: string; version: string }): Promise<SeedResult> {
  let existing = new Map<string, { menuId: number; orderNum: number }>();

  async function addMenus(tx: Db, nodes: SeedMenu[], parentId: number, level: 0 | 1) {
    // A menu added to an existing database (an upgrade) takes the order of the sibling it follows in the seed, so
    // that it sorts right after it (ties go by menu id) and not after whatever the administrator ordered there.
    let previousStoredOrder: number | undefined;
    for (const [index, node] of nodes.entries()) {
      let menuId = existing.get(node.code)?.menuId;
      if (menuId === undefined) {
        const orderNum = previousStoredOrder ?? index + 1;
        const [row] = await tx
          .insert(menus)
          .values({
            parentId,
            type: node.type,
            code: node.code,
            perms: node.perms ?? null,
            path: node.path ?? null,
            level,
            orderNum,
            title: node.title,
            icon: node.icon ?? null,
            hidden: node.hidden ?? false,
          })
          .returning({ menuId: menus.menuId });
        menuId = row!.menuId;
        existing.set(node.code, { menuId, orderNum });
        previousStoredOrder = undefined;
      } else {
        previousStoredOrder = existing.get(node.code)!.orderNum;
      }
      if (node.children) await addMenus(tx, node.children, menuId, level);
    }
  }

  return db.transaction(async (tx) => {
    // One seeder at a time when several app servers start against one PostgreSQL.
    await tx.execute(sql`select pg_advisory_xact_lock(42001)`);
    // Read under the lock: a seeder that read before another one committed would add every menu again.
    existing = new Map(
      (await tx.select({ code: menus.code, menuId: menus.menuId, orderNum: menus.orderNum }).from(menus)).map((m) => [
        m.code,
        { menuId: m.menuId, orderNum: m.orderNum },
      ]),
    );
    await addMenus(tx, MAIN_MENUS, 0, 0);
    await addMenus(tx, PROJECT_MENUS, 0, 1);

    let [adminRole] = await tx
      .select({ roleId: roles.roleId })
      .from(roles)
      .where(eq(roles.roleKey, ADMIN_ROLE.roleKey));
    adminRole ??= (
      await tx
        .insert(roles)
        .values({ ...ADMIN_ROLE, admin: true, roleSort: 1, remark: '拥有全部权限' })
        .returning({ roleId: roles.roleId })
    )[0]!;

    let [root] = await tx
      .select({ deptId: departments.deptId })
      .from(departments)
      .where(eq(departments.parentId, 0))
      .limit(1);
    root ??= (
      await tx
        .insert(departments)
        .values({ parentId: 0, deptName: ROOT_DEPT_NAME, orderNum: 1 })
        .returning({ deptId: departments.deptId })
    )[0]!;

    await tx
      .insert(sysConfigs)
      .values([
        { fieldName: 'SystemTitle', configKey: 'systemtitle', fieldValue: DEFAULT_SYSTEM_TITLE },
        { fieldName: 'Version', configKey: 'systemtitle', fieldValue: opts.version },
      ])
      .onConflictDoNothing();
    await tx.update(sysConfigs).set({ fieldValue: opts.version }).where(eq(sysConfigs.fieldName, 'Version'));

    const [{ n }] = (await tx.select({ n: count() }).from(users)) as [{ n: number }];
    if (Number(n) > 0) return { adminCreated: false };

    const generated = opts.adminPassword ? undefined : crypto.randomBytes(9).toString('base64url').slice(0, 12);
    const [admin] = await tx
      .insert(users)
      .values({
        userName: ADMIN_USER_NAME,
        passwordHash: await hashPassword(opts.adminPassword ?? generated!),
        name: '系统管理员',
        deptId: root.deptId,
        remark: '平台初始管理员',
        setPasswordMust: true,
      })
      .returning({ userId: users.userId });
    await tx.insert(userRoles).values({ userId: admin!.userId, roleId: adminRole.roleId });
    return { adminCreated: true, generatedAdminPassword: generated };
  });
}
