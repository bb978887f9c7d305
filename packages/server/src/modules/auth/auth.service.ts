import crypto from 'node:crypto';
import { and, eq, isNull, ne } from 'drizzle-orm';
import {
  ACCOUNT_POLICY_MSG,
  buildTree,
  isAccountExpired,
  isSessionIdle,
  securitySettingValue,
  type MenuNode,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { menus, sessions, spentRefreshTokens, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { hashPassword, verifyPassword } from '../../shared/password.js';
import { userProfile } from '../system/user.service.js';
import { checkCaptcha } from './captcha.service.js';
import { grantedMenuIds, rolesOf } from './permission.service.js';
import { attemptPassword, reauthenticate } from './password-attempts.service.js';
import { revokeSessionsOf } from './session.service.js';
import { demandChangeIfAged, keepReplacedPassword, refuseRecentPassword } from './password-policy.service.js';
import { checkSessionActivity, storedIdleSetting } from '../../shared/session-activity.js';
import { readSecuritySettings } from '../system/security-settings.service.js';
import { hashRefreshToken, newRefreshToken } from './token.service.js';

export { FREE_FAILURES, LOCK_MS, MAX_FAILED_LOGINS, slowdownMs } from './password-attempts.service.js';

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
    lastActiveAt: ctx.clock(),
  });
  const token = await ctx.tokens.signAccess({ userId, sessionId });
  return { token, refreshToken, expiresIn: ctx.config.accessTokenSeconds };
}

export async function login(ctx: AppContext, input: LoginInput, client: ClientInfo) {
  await checkCaptcha(ctx, input.uuid, input.code);
  const userName = input.username.trim();
  const [user] = await ctx.db
    .select({
      userId: users.userId,
      passwordHash: users.passwordHash,
      status: users.status,
      expiresOn: users.expiresOn,
      passwordChangedAt: users.passwordChangedAt,
      setPasswordMust: users.setPasswordMust,
    })
    .from(users)
    .where(and(eq(users.userName, userName), isNull(users.deletedAt)));
  const outcome = await attemptPassword(ctx, { userName, ip: client.ip }, async () => {
    // Verify against a throwaway hash for unknown names so timing doesn't reveal which names exist.
    const passwordOk = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
    return user !== undefined && passwordOk;
  });
  if (!outcome.ok) {
    throw AppError.badRequest('auth.bad_credentials', `用户名或密码错误，还可尝试${outcome.attemptsLeft}次`);
  }
  // Never undefined here: an unknown name is never a right password.
  if (!user) throw AppError.unauthorized();
  if (user.status !== 0) throw new AppError(403, 'auth.disabled', '账号已停用，请联系管理员');
  // Only after the password was right, like 已停用: the answer does not tell a guesser the account exists.
  if (isAccountExpired(user.expiresOn, ctx.clock())) {
    throw new AppError(403, 'auth.account_expired', ACCOUNT_POLICY_MSG.accountExpired);
  }
  await demandChangeIfAged(ctx, user);

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
  const presented = hashRefreshToken(refreshToken);
  const [row] = await ctx.db
    .select({
      sessionId: sessions.sessionId,
      userId: sessions.userId,
      expiresAt: sessions.expiresAt,
      revokedAt: sessions.revokedAt,
      lastActiveAt: sessions.lastActiveAt,
      status: users.status,
      deletedAt: users.deletedAt,
      expiresOn: users.expiresOn,
    })
    .from(sessions)
    .innerJoin(users, eq(users.userId, sessions.userId))
    .where(eq(sessions.refreshHash, presented));
  if (!row) {
    await revokeFamilyOfSpent(ctx, presented);
    throw AppError.unauthorized('auth.refresh_invalid');
  }
  if (row.expiresAt <= now || row.status !== 0 || row.deletedAt) throw AppError.unauthorized('auth.refresh_invalid');
  // The reasons a person can act on are told (the web shows them on the sign-in page); the rest is 登录超时.
  if (isAccountExpired(row.expiresOn, now)) {
    throw AppError.unauthorized('auth.account_expired', ACCOUNT_POLICY_MSG.accountExpired);
  }
  const idleSetting = await storedIdleSetting(ctx.db);
  if (row.revokedAt) {
    // Ended by idleness (its last activity was past the limit when it was revoked) or otherwise.
    const idle =
      row.lastActiveAt &&
      isSessionIdle(row.lastActiveAt, securitySettingValue('idleTimeoutMinutes', idleSetting), row.revokedAt);
    if (idle) throw AppError.unauthorized('auth.idle_timeout', ACCOUNT_POLICY_MSG.idleSignedOut);
    throw AppError.unauthorized('auth.refresh_invalid');
  }
  if ((await checkSessionActivity(ctx, { ...row, idleSetting })) === 'idle') {
    throw AppError.unauthorized('auth.idle_timeout', ACCOUNT_POLICY_MSG.idleSignedOut);
  }
  // Rotation: the old refresh token stops working the moment a new one is issued, and is kept
  // as spent so that presenting it again is recognised as theft.
  const next = newRefreshToken();
  const rotated = await ctx.db.transaction(async (tx) => {
    const updated = await tx
      .update(sessions)
      .set({ refreshHash: hashRefreshToken(next) })
      .where(
        and(eq(sessions.sessionId, row.sessionId), eq(sessions.refreshHash, presented), isNull(sessions.revokedAt)),
      )
      .returning({ sessionId: sessions.sessionId });
    if (updated.length === 0) return false;
    await tx.insert(spentRefreshTokens).values({ refreshHash: presented, sessionId: row.sessionId, spentAt: now });
    return true;
  });
  if (!rotated) {
    // Another request rotated the same token at the same moment: one of the two is a copy.
    await revokeFamilyOfSpent(ctx, presented);
    throw AppError.unauthorized('auth.refresh_invalid');
  }
  const token = await ctx.tokens.signAccess({ userId: row.userId, sessionId: row.sessionId });
  return { token, refreshToken: next, expiresIn: ctx.config.accessTokenSeconds };
}

/**
 * A refresh token that was already rotated away is being used again: either the legitimate
 * client or a thief holds a copy, and the server can't tell which. The session is the token
 * family (every refresh token issued since one sign-in), so revoking it ends both.
 */
async function revokeFamilyOfSpent(ctx: AppContext, refreshHash: string) {
  const [spent] = await ctx.db
    .select({ sessionId: spentRefreshTokens.sessionId })
    .from(spentRefreshTokens)
    .where(eq(spentRefreshTokens.refreshHash, refreshHash));
  if (!spent) return;
  await ctx.db
    .update(sessions)
    .set({ revokedAt: ctx.clock() })
    .where(and(eq(sessions.sessionId, spent.sessionId), isNull(sessions.revokedAt)));
  ctx.realtime.endSession(spent.sessionId);
}

export async function logout(ctx: AppContext, user: CurrentUser) {
  await ctx.db.update(sessions).set({ revokedAt: ctx.clock() }).where(eq(sessions.sessionId, user.sessionId));
  ctx.realtime.endSession(user.sessionId);
}

export async function getInfo(ctx: AppContext, user: CurrentUser) {
  const profile = await userProfile(ctx, user.userId);
  const roles = await rolesOf(ctx.db, user.userId);
  return {
    user: profile,
    roles: roles.map((r) => r.roleKey),
    roleNames: roles.map((r) => r.roleName),
    permissions: user.permissions,
    idleTimeoutMinutes: (await readSecuritySettings(ctx.db)).idleTimeoutMinutes,
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
  await reauthenticate(ctx, user, input.oldPassword, () =>
    AppError.badRequest('auth.old_password_wrong', '原始密码错误'),
  );
  await refuseRecentPassword(ctx, user.userId, input.newPassword);
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction(async (tx) => {
    await keepReplacedPassword(tx, user.userId, ctx.clock());
    await tx
      .update(users)
      .set({ passwordHash, setPasswordMust: false, passwordChangedAt: ctx.clock(), updatedAt: ctx.clock() })
      .where(eq(users.userId, user.userId));
    // Other devices signed in with the old password are signed out.
    await revokeSessionsOf({ ...ctx, db: tx }, user.userId, user.sessionId);
  });
  ctx.realtime.endSessions(user.userId, user.sessionId);
}

export async function resetPassword(ctx: AppContext, input: { userId: number; newPassword: string }) {
  // Not checked against the history: a refusal would tell the administrator one of the user's earlier passwords.
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.transaction(async (tx) => {
    await keepReplacedPassword(tx, input.userId, ctx.clock());
    const updated = await tx
      .update(users)
      .set({ passwordHash, setPasswordMust: true, passwordChangedAt: ctx.clock(), updatedAt: ctx.clock() })
      .where(and(eq(users.userId, input.userId), isNull(users.deletedAt)))
      .returning({ userId: users.userId });
    if (updated.length === 0) throw AppError.notFound('user.not_found', '用户不存在');
    await revokeSessionsOf({ ...ctx, db: tx }, input.userId);
  });
  ctx.realtime.endSessions(input.userId);
}
