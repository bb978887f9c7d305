import crypto from 'node:crypto';
import { and, eq, isNull, ne } from 'drizzle-orm';
import { buildTree, type MenuNode } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { menus, sessions, users } from '../../db/schema/index.js';
import { AppError } from '../../http/app-error.js';
import type { CurrentUser } from '../../http/auth.js';
import { hashPassword, verifyPassword } from '../../shared/password.js';
import { userProfile } from '../system/user.service.js';
import { checkCaptcha } from './captcha.service.js';
import { grantedMenuIds, rolesOf } from './permission.service.js';
import { revokeSessionsOf } from './session.service.js';
import { hashRefreshToken, newRefreshToken } from './token.service.js';

export const MAX_FAILED_LOGINS = 5;
export const LOCK_MS = 15 * 60 * 1000;
const failKey = (userName: string) => `login:fail:${userName}`;
const lockKey = (userName: string) => `login:lock:${userName}`;

export interface LoginInput {
  username: string;
  password: string;
  code?: string;
  uuid?: string;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
}

function minutesLeft(unlockAt: number, now: Date) {
  return Math.max(1, Math.ceil((unlockAt - now.getTime()) / 60000));
}

async function openSession(ctx: AppContext, userId: number, client: ClientInfo) {
  const sessionId = crypto.randomUUID();
  const refreshToken = newRefreshToken();
  await ctx.db.insert(sessions).values({
    sessionId,
    userId,
    refreshHash: hashRefreshToken(refreshToken),
    expiresAt: new Date(ctx.clock().getTime() + ctx.config.refreshTokenSeconds * 1000),
    ip: client.ip,
    userAgent: client.userAgent?.slice(0, 300),
    createdAt: ctx.clock(),
  });
  const token = await ctx.tokens.signAccess({ userId, sessionId });
  return { token, refreshToken, expiresIn: ctx.config.accessTokenSeconds };
}

export async function login(ctx: AppContext, input: LoginInput, client: ClientInfo) {
  await checkCaptcha(ctx, input.uuid, input.code);
  const userName = input.username.trim();
  const now = ctx.clock();

  const lockedUntil = await ctx.kv.get(lockKey(userName));
  if (lockedUntil) {
    throw new AppError(
      423,
      'auth.locked',
      `密码错误次数过多，账号已锁定，请${minutesLeft(Number(lockedUntil), now)}分钟后再试`,
    );
  }

  const [user] = await ctx.db
    .select({ userId: users.userId, passwordHash: users.passwordHash, status: users.status })
    .from(users)
    .where(and(eq(users.userName, userName), isNull(users.deletedAt)));
  // Verify against a throwaway hash for unknown names so timing doesn't reveal which names exist.
  const passwordOk = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
  if (!user || !passwordOk) {
    const failures = await ctx.kv.incr(failKey(userName), LOCK_MS);
    if (failures >= MAX_FAILED_LOGINS) {
      await ctx.kv.set(lockKey(userName), String(now.getTime() + LOCK_MS), LOCK_MS);
      await ctx.kv.del(failKey(userName));
      throw new AppError(423, 'auth.locked', '密码错误次数过多，账号已锁定，请15分钟后再试');
    }
    throw AppError.badRequest(
      'auth.bad_credentials',
      `用户名或密码错误，还可尝试${MAX_FAILED_LOGINS - failures}次`,
    );
  }
  if (user.status !== 0) throw new AppError(403, 'auth.disabled', '账号已停用，请联系管理员');

  await ctx.kv.del(failKey(userName));
  const tokens = await openSession(ctx, user.userId, client);
  const profile = await userProfile(ctx, user.userId);
  return { ...tokens, setPasswordMust: profile.setPasswordMust, user: profile };
}

let dummy: Promise<string> | undefined;
function dummyHash() {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  return dummy;
}

export async function refresh(ctx: AppContext, refreshToken: string) {
  const now = ctx.clock();
  const [row] = await ctx.db
    .select({
      sessionId: sessions.sessionId,
      userId: sessions.userId,
      expiresAt: sessions.expiresAt,
      revokedAt: sessions.revokedAt,
      status: users.status,
      deletedAt: users.deletedAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.userId, sessions.userId))
    .where(eq(sessions.refreshHash, hashRefreshToken(refreshToken)));
  if (!row || row.revokedAt || row.expiresAt <= now || row.status !== 0 || row.deletedAt) {
    throw AppError.unauthorized('auth.refresh_invalid');
  }
  // Rotation: the old refresh token stops working the moment a new one is issued.
  const next = newRefreshToken();
  await ctx.db
    .update(sessions)
    .set({ refreshHash: hashRefreshToken(next) })
    .where(eq(sessions.sessionId, row.sessionId));
  const token = await ctx.tokens.signAccess({ userId: row.userId, sessionId: row.sessionId });
  return { token, refreshToken: next, expiresIn: ctx.config.accessTokenSeconds };
}

export async function logout(ctx: AppContext, user: CurrentUser) {
  await ctx.db.update(sessions).set({ revokedAt: ctx.clock() }).where(eq(sessions.sessionId, user.sessionId));
}

export async function getInfo(ctx: AppContext, user: CurrentUser) {
  const profile = await userProfile(ctx, user.userId);
  const roles = await rolesOf(ctx.db, user.userId);
  return {
    user: profile,
    roles: roles.map((r) => r.roleKey),
    roleNames: roles.map((r) => r.roleName),
    permissions: user.permissions,
  };
}

export async function getRouters(ctx: AppContext, user: CurrentUser): Promise<MenuNode[]> {
  const visible = await grantedMenuIds(ctx.db, user.userId, user.admin);
  const rows = await ctx.db.select().from(menus).where(ne(menus.type, 'F')).orderBy(menus.orderNum, menus.menuId);
  const nodes = rows.filter((m) => visible.has(m.menuId)).map(toMenuNode);
  return buildTree(nodes, (n) => n.menuId);
}

export function toMenuNode(m: typeof menus.$inferSelect): MenuNode {
  return {
    menuId: m.menuId,
    parentId: m.parentId,
    type: m.type as MenuNode['type'],
    code: m.code,
    perms: m.perms,
    path: m.path,
    level: m.level as 0 | 1,
    orderNum: m.orderNum,
    status: m.status,
    meta: { title: m.title, icon: m.icon, hidden: m.hidden },
    children: [],
  };
}

export async function changePassword(
  ctx: AppContext,
  user: CurrentUser,
  input: { userId?: number; oldPassword: string; newPassword: string },
) {
  if (input.userId !== undefined && input.userId !== user.userId) {
    throw AppError.forbidden('auth.not_own_password', '只能修改本人密码');
  }
  const [row] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.userId, user.userId));
  if (!row || !(await verifyPassword(row.passwordHash, input.oldPassword))) {
    throw AppError.badRequest('auth.old_password_wrong', '原始密码错误');
  }
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ passwordHash, setPasswordMust: false, passwordChangedAt: ctx.clock(), updatedAt: ctx.clock() })
      .where(eq(users.userId, user.userId));
    // Other devices signed in with the old password are signed out.
    await revokeSessionsOf({ ...ctx, db: tx }, user.userId, user.sessionId);
  });
}

export async function resetPassword(ctx: AppContext, input: { userId: number; newPassword: string }) {
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(users)
      .set({ passwordHash, setPasswordMust: true, passwordChangedAt: ctx.clock(), updatedAt: ctx.clock() })
      .where(and(eq(users.userId, input.userId), isNull(users.deletedAt)))
      .returning({ userId: users.userId });
    if (updated.length === 0) throw AppError.notFound('user.not_found', '用户不存在');
    await revokeSessionsOf({ ...ctx, db: tx }, input.userId);
  });
}
