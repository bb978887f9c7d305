import { and, count, desc, eq, ilike, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { UserCreate, UserUpdate } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Tx } from '../../db/client.js';
import { departments, roles, userRoles, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { hashPassword } from '../../shared/password.js';
import { audit } from '../audit/audit.service.js';
import { revokeSessionsOf } from '../auth/session.service.js';
import { deptSubtree } from './dept.service.js';
import { PLATFORM_CHAIN } from './security-settings.service.js';

export interface UserFilter {
  name?: string;
  userName?: string;
  deptId?: number;
  status?: number;
}

const notFound = () => AppError.notFound('user.not_found', '用户不存在');
const live = isNull(users.deletedAt);

const userColumns = {
  userId: users.userId,
  userName: users.userName,
  name: users.name,
  sex: users.sex,
  email: users.email,
  mobile: users.mobile,
  deptId: users.deptId,
  deptName: departments.deptName,
  remark: users.remark,
  status: users.status,
  home: users.home,
  setPasswordMust: users.setPasswordMust,
  expiresOn: users.expiresOn,
  createTime: users.createdAt,
};

async function withRoles<T extends { userId: number }>(ctx: AppContext, rows: T[]) {
  if (rows.length === 0) return [];
  const links = await ctx.db
    .select({ userId: userRoles.userId, roleId: roles.roleId, roleName: roles.roleName })
    .from(userRoles)
    .innerJoin(roles, eq(roles.roleId, userRoles.roleId))
    .where(
      inArray(
        userRoles.userId,
        rows.map((r) => r.userId),
      ),
    )
    .orderBy(roles.roleSort, roles.roleId);
  return rows.map((row) => {
    const mine = links.filter((l) => l.userId === row.userId);
    return { ...row, roleIds: mine.map((l) => l.roleId), roleNames: mine.map((l) => l.roleName) };
  });
}

export async function listUsers(ctx: AppContext, filter: UserFilter, page: PageRequest) {
  const deptIds = filter.deptId !== undefined ? await deptSubtree(ctx, filter.deptId) : undefined;
  const where = and(
    live,
    filter.name ? ilike(users.name, `%${filter.name}%`) : undefined,
    filter.userName ? ilike(users.userName, `%${filter.userName}%`) : undefined,
    deptIds ? inArray(users.deptId, deptIds) : undefined,
    filter.status !== undefined ? eq(users.status, filter.status) : undefined,
  );
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(users).where(where),
    ctx.db
      .select(userColumns)
      .from(users)
      .leftJoin(departments, eq(departments.deptId, users.deptId))
      .where(where)
      .orderBy(desc(users.createdAt), desc(users.userId))
      .$dynamic(),
    page,
  );
  return { list: await withRoles(ctx, rows), total };
}

/** The signed-in user's own profile (sign-in answer and getInfo). */
export async function userProfile(ctx: AppContext, userId: number) {
  const { createTime: _createTime, ...profileColumns } = userColumns;
  const [row] = await ctx.db
    .select(profileColumns)
    .from(users)
    .leftJoin(departments, eq(departments.deptId, users.deptId))
    .where(and(eq(users.userId, userId), live));
  if (!row) throw notFound();
  return row;
}

export async function getUser(ctx: AppContext, userId: number) {
  const [row] = await ctx.db
    .select(userColumns)
    .from(users)
    .leftJoin(departments, eq(departments.deptId, users.deptId))
    .where(and(eq(users.userId, userId), live));
  if (!row) throw notFound();
  const [withRoleIds] = await withRoles(ctx, [row]);
  return withRoleIds!;
}

async function checkReferences(tx: Tx, input: { deptId: number; roleIds: number[] }) {
  const [dept] = await tx
    .select({ id: departments.deptId })
    .from(departments)
    .where(eq(departments.deptId, input.deptId));
  if (!dept) throw AppError.badRequest('user.dept_missing', '所属机构不存在');
  const found = await tx.select({ id: roles.roleId }).from(roles).where(inArray(roles.roleId, input.roleIds));
  if (found.length !== new Set(input.roleIds).size) throw AppError.badRequest('user.role_missing', '所属职位不存在');
}

async function checkUserNameFree(tx: Tx, userName: string, selfId?: number) {
  const [clash] = await tx
    .select({ id: users.userId })
    .from(users)
    .where(and(eq(users.userName, userName), live, selfId !== undefined ? ne(users.userId, selfId) : undefined));
  if (clash) throw AppError.conflict('user.user_name_taken', '用户名已存在');
}

async function replaceUserRoles(tx: Tx, userId: number, roleIds: number[]) {
  await tx.delete(userRoles).where(eq(userRoles.userId, userId));
  await tx.insert(userRoles).values([...new Set(roleIds)].map((roleId) => ({ userId, roleId })));
}

/** The columns of a user the administrator's form sets, as a user is created and edited. */
function editableColumns(input: UserCreate | UserUpdate) {
  return {
    userName: input.userName,
    name: input.name,
    sex: input.sex ?? null,
    email: input.email || null,
    mobile: input.mobile || null,
    deptId: input.deptId,
    remark: input.remark ?? null,
    status: input.status,
    // 账号有效期: left as it is when an edit does not send it (older clients), cleared by null.
    ...(input.expiresOn !== undefined ? { expiresOn: input.expiresOn } : {}),
  };
}

export async function createUser(ctx: AppContext, input: UserCreate) {
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction(async (tx) => {
    await checkUserNameFree(tx, input.userName);
    await checkReferences(tx, input);
    const [row] = await tx
      .insert(users)
      .values({
        ...editableColumns(input),
        passwordHash,
        // An administrator chose this password, so the person must replace it (spec §2 must-change dialog).
        setPasswordMust: true,
      })
      .returning({ userId: users.userId });
    await replaceUserRoles(tx, row!.userId, input.roleIds);
    return row!;
  });
}

export async function updateUser(ctx: AppContext, actor: CurrentUser, input: UserUpdate) {
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: users.userId, expiresOn: users.expiresOn })
      .from(users)
      .where(and(eq(users.userId, input.userId), live));
    if (!existing) throw notFound();
    await checkUserNameFree(tx, input.userName, input.userId);
    await checkReferences(tx, input);
    if (input.userId === actor.userId && input.status !== 0) {
      throw AppError.badRequest('user.self_disable', '不能停用当前登录用户');
    }
    await tx
      .update(users)
      .set({
        ...editableColumns(input),
        updatedAt: ctx.clock(),
      })
      .where(eq(users.userId, input.userId));
    await replaceUserRoles(tx, input.userId, input.roleIds);
    await ensureAnAdministratorRemains(tx);
    // 账号有效期 decides who may sign in: its change is kept with old and new value on the platform's chain.
    if (input.expiresOn !== undefined && input.expiresOn !== existing.expiresOn) {
      await audit(tx, actor, ctx.clock(), [
        {
          studyId: PLATFORM_CHAIN,
          action: 'system.user.expiry',
          itemName: input.userName,
          oldValue: existing.expiresOn,
          newValue: input.expiresOn,
        },
      ]);
    }
  });
}

export async function setUserStatus(ctx: AppContext, actor: CurrentUser, userId: number, status: number) {
  if (userId === actor.userId && status !== 0) throw AppError.badRequest('user.self_disable', '不能停用当前登录用户');
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(users)
      .set({ status, updatedAt: ctx.clock() })
      .where(and(eq(users.userId, userId), live))
      .returning({ id: users.userId });
    if (updated.length === 0) throw notFound();
    if (status !== 0) await revokeSessionsOf({ ...ctx, db: tx }, userId);
    await ensureAnAdministratorRemains(tx);
  });
  if (status !== 0) ctx.realtime.endSessions(userId);
}

export async function deleteUser(ctx: AppContext, actor: CurrentUser, userId: number) {
  if (userId === actor.userId) throw AppError.badRequest('user.self_delete', '不能删除当前登录用户');
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(users)
      .set({ deletedAt: ctx.clock(), status: 1, updatedAt: ctx.clock() })
      .where(and(eq(users.userId, userId), live))
      .returning({ id: users.userId });
    if (updated.length === 0) throw notFound();
    await revokeSessionsOf({ ...ctx, db: tx }, userId);
    await ensureAnAdministratorRemains(tx);
  });
  ctx.realtime.endSessions(userId);
}

export async function setHome(ctx: AppContext, perm: string, userIds: number[]) {
  if (userIds.length === 0) return;
  await ctx.db
    .update(users)
    .set({ home: perm, updatedAt: ctx.clock() })
    .where(and(inArray(users.userId, userIds), live));
}

/** The platform must never lose its last enabled administrator: nobody could manage it again. */
export async function ensureAnAdministratorRemains(tx: Tx) {
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`
    select count(*)::int as n from users u
      join user_roles ur on ur.user_id = u.user_id
      join roles r on r.role_id = ur.role_id
    where u.deleted_at is null and u.status = 0 and r.status = 0 and r.is_admin`,
  );
  if (Number(row?.n ?? 0) === 0) {
    throw AppError.conflict('user.last_admin', '至少需要保留一个启用的管理员');
  }
}
