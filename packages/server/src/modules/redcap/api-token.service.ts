import crypto from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { ACCOUNT_POLICY_MSG, crfIdsWith, isAccountExpired } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { apiTokens, studies, studyPersonnel, studyRoles, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { permissionsOf } from '../../shared/user-permissions.js';

/** REDCap's token shape: 32 hexadecimal characters (128 random bits), shown in upper case. */
export const API_TOKEN_PATTERN = /^[0-9A-Fa-f]{32}$/;

/** A token is 128 random bits: a plain SHA-256 cannot be reversed, so no slow hash is needed to look it up. */
export const hashApiToken = (token: string) => crypto.createHash('sha256').update(token.toUpperCase()).digest('hex');

/** The caller's access to a study (the HTTP layer's study guard loads it; services do not import it). */
export type AccessLoader = (userId: number, permissions: string[], studyId: number) => Promise<StudyAccess | null>;

/** Study staff who may read data there: a member whose study role may view at least one CRF. */
function mayUseApi(access: StudyAccess | null): access is StudyAccess {
  return access !== null && access.member && (access.all || crfIdsWith(access.permissions, 'view').length > 0);
}

/** The studies the user may create a token for (the personal page's choice). */
export async function tokenStudies(ctx: AppContext, user: CurrentUser) {
  const rows = await ctx.db
    .select({ studyId: studies.studyId, studyName: studies.studyName, permissions: studyRoles.permissions })
    .from(studyPersonnel)
    .innerJoin(studies, eq(studies.studyId, studyPersonnel.studyId))
    .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(and(eq(studyPersonnel.userId, user.userId), isNull(studies.deletedAt)))
    .orderBy(studies.studyId);
  return rows
    .filter((r) => crfIdsWith(r.permissions ?? [], 'view').length > 0)
    .map((r) => ({ studyId: r.studyId, studyName: r.studyName }));
}

export async function listTokens(ctx: AppContext, user: CurrentUser) {
  const rows = await ctx.db
    .select({
      id: apiTokens.id,
      studyId: apiTokens.studyId,
      studyName: studies.studyName,
      createTime: apiTokens.createdAt,
      lastUsedTime: apiTokens.lastUsedAt,
      revokeTime: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .innerJoin(studies, eq(studies.studyId, apiTokens.studyId))
    .where(eq(apiTokens.userId, user.userId))
    .orderBy(desc(apiTokens.id));
  return rows;
}

/**
 * A new token for the caller in one study, answered once: only its hash is stored. One live token per
 * user and study (as REDCap has): a second is refused until the first is revoked.
 */
export async function createToken(ctx: AppContext, accessOf: AccessLoader, user: CurrentUser, studyId: number) {
  const access = await accessOf(user.userId, user.permissions, studyId);
  if (!mayUseApi(access)) {
    throw AppError.forbidden('api_token.not_allowed', '只有能查看本项目数据的项目成员可以创建API令牌');
  }
  const token = crypto.randomBytes(16).toString('hex').toUpperCase();
  const now = ctx.clock();
  const id = await ctx.db.transaction(async (tx) => {
    // One live token per user and study: the partial unique index api_tokens_one_live decides.
    const [row] = await tx
      .insert(apiTokens)
      .values({ studyId, userId: user.userId, tokenHash: hashApiToken(token), createdAt: now })
      .onConflictDoNothing()
      .returning({ id: apiTokens.id });
    if (!row) throw AppError.conflict('api_token.exists', '您在该项目已有有效的API令牌，请先撤销');
    // Who created which token, never the token itself.
    await audit(tx, user, now, [{ studyId, action: 'api_token.create', newValue: { tokenId: row!.id } }]);
    return row!.id;
  });
  return { id, studyId, token, createTime: now };
}

export async function revokeToken(ctx: AppContext, user: CurrentUser, id: number) {
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, user.userId)))
      .for('update');
    if (!row) throw AppError.notFound('api_token.not_found', 'API令牌不存在');
    if (row.revokedAt) return;
    await tx.update(apiTokens).set({ revokedAt: now, revokedBy: user.userId }).where(eq(apiTokens.id, id));
    await audit(tx, user, now, [{ studyId: row.studyId, action: 'api_token.revoke', oldValue: { tokenId: id } }]);
  });
}

/** Why a REDCap API call is refused: 401 for a token that is not (or no longer) one, 403 for a user who may not. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiCaller {
  tokenId: number;
  user: CurrentUser;
  access: StudyAccess;
}

/**
 * The caller of one API call, checked afresh each time: the token live, the user enabled and still
 * staff of the study with some data to view. Marks the token used.
 */
export async function resolveApiToken(
  ctx: AppContext,
  accessOf: AccessLoader,
  token: string | undefined,
): Promise<ApiCaller> {
  if (!token || !API_TOKEN_PATTERN.test(token)) throw new ApiRefusal(401, 'API令牌缺失或不正确');
  const [row] = await ctx.db
    .select({
      id: apiTokens.id,
      studyId: apiTokens.studyId,
      revokedAt: apiTokens.revokedAt,
      userId: users.userId,
      userName: users.userName,
      name: users.name,
      deptId: users.deptId,
      status: users.status,
      deletedAt: users.deletedAt,
      setPasswordMust: users.setPasswordMust,
      expiresOn: users.expiresOn,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.userId, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, hashApiToken(token)))
    .limit(1);
  if (!row || row.revokedAt) throw new ApiRefusal(401, 'API令牌缺失或不正确');
  if (row.status !== 0 || row.deletedAt) throw new ApiRefusal(403, '您没有使用API的权限：账号已停用');
  // An expired account (an external monitor's contract ended) loses its API tokens with its sign-in.
  if (isAccountExpired(row.expiresOn, ctx.clock())) throw new ApiRefusal(403, ACCOUNT_POLICY_MSG.apiAccountExpired);
  if (row.setPasswordMust) throw new ApiRefusal(403, '您没有使用API的权限：请先登录并修改初始密码');
  const { admin, permissions } = await permissionsOf(ctx.db, row.userId);
  const access = await accessOf(row.userId, permissions, row.studyId);
  if (!mayUseApi(access)) throw new ApiRefusal(403, '您没有使用API的权限：您已不是该项目成员或不能查看该项目的数据');
  await ctx.db.update(apiTokens).set({ lastUsedAt: ctx.clock() }).where(eq(apiTokens.id, row.id));
  return {
    tokenId: row.id,
    access,
    user: {
      userId: row.userId,
      userName: row.userName,
      name: row.name,
      deptId: row.deptId,
      sessionId: `api-token-${row.id}`,
      admin,
      permissions,
      setPasswordMust: row.setPasswordMust,
    },
  };
}
