import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { hasAnyPermission, type SystemPermission } from '@ecrf/core';
import type { AppContext } from '../app-context.js';
import { reusableSelect } from '../db/reusable-query.js';
import { authGeneration, sessions, sysConfigs, users } from '../db/schema/index.js';
import { cachedAtGeneration } from '../shared/auth-cache.js';
import { permissionsOf } from '../shared/user-permissions.js';
import { checkSessionActivity, IDLE_FIELD } from '../shared/session-activity.js';
import type { CurrentUser } from '../shared/current-user.js';
import { AppError } from './app-error.js';

export type { CurrentUser };

declare module 'fastify' {
  interface FastifyRequest {
    currentUser: CurrentUser | null;
  }
  interface FastifyContextConfig {
    /** Permission code(s) the caller must hold, any one of them (checked on the server, whatever the browser shows). */
    permission?: SystemPermission | readonly SystemPermission[];
    /** Operation-log module title and action, e.g. 用户管理 / 新增. */
    module?: string;
    action?: string;
    /** Reachable while the user still has to replace an initial or reset password. */
    allowWhilePasswordMustChange?: boolean;
  }
}

/**
 * `/api/docs` checks its own access (public or administrators, by EDC_API_DOCS); `/api/redcap` takes
 * its API token from the body, as REDCap's clients send it, and checks it itself.
 */
const PUBLIC_PREFIXES = ['/api/ignore/', '/api/docs', '/api/redcap'];

function needsToken(url: string): boolean {
  // The spine recognition call keeps the spec's address outside /api (forms §7).
  const api = url.startsWith('/api/') || url.startsWith('/spine_cobb/');
  return api && !PUBLIC_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** Images and files shown with <img src> or a link can't carry a header: file downloads also read this cookie. */
export const FILE_COOKIE = 'edc_file_token';
export const FILE_COOKIE_PATH = '/api/v1/fileupload';

function fileCookie(request: FastifyRequest): string | null {
  if (!request.url.startsWith(FILE_COOKIE_PATH)) return null;
  const cookies = request.headers.cookie?.split(';') ?? [];
  for (const cookie of cookies) {
    const [name, ...rest] = cookie.trim().split('=');
    if (name === FILE_COOKIE) return rest.join('=') || null;
  }
  return null;
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return fileCookie(request);
  const [scheme, token] = header.split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : null;
}

/** The file-download cookie: HttpOnly, SameSite=Strict, scoped to the download path, as short-lived as the token. */
export function fileCookieHeader(token: string | null, maxAgeSeconds: number, secure: boolean): string {
  const value = token ?? '';
  const age = token ? maxAgeSeconds : 0;
  return `${FILE_COOKIE}=${value}; Path=${FILE_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${age}${secure ? '; Secure' : ''}`;
}

const readSession = reusableSelect('auth_read_session', (db) =>
  db
    .select({
      generation:
        sql<number>`(select ${authGeneration.generation} from ${authGeneration} where ${authGeneration.id} = 1)`.mapWith(
          Number,
        ),
      userId: users.userId,
      userName: users.userName,
      name: users.name,
      deptId: users.deptId,
      status: users.status,
      setPasswordMust: users.setPasswordMust,
      revokedAt: sessions.revokedAt,
      expiresAt: sessions.expiresAt,
      // Account expiry and idle sign-out (issue 36), read in the same statement.
      expiresOn: users.expiresOn,
      lastActiveAt: sessions.lastActiveAt,
      idleSetting: sql<
        string | null
      >`(select ${sysConfigs.fieldValue} from ${sysConfigs} where ${sysConfigs.fieldName} = ${sql.raw(`'${IDLE_FIELD}'`)})`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.userId, sessions.userId))
    .where(
      and(
        eq(sessions.sessionId, sql.placeholder('sessionId')),
        eq(users.userId, sql.placeholder('userId')),
        isNull(users.deletedAt),
      ),
    )
    .limit(1),
);

export async function loadCurrentUser(ctx: AppContext, token: string): Promise<CurrentUser | null> {
  const claims = await ctx.tokens.verifyAccess(token);
  if (!claims) return null;
  // One statement per request: the session as it is now (never cached) and the auth generation, under
  // which the user's permissions and study memberships are cached (shared/auth-cache.ts).
  const [row] = await readSession(ctx.db, { sessionId: claims.sessionId, userId: claims.userId });
  // A revoked session, an expired one or a disabled user ends every token at once.
  if (!row || row.revokedAt || row.expiresAt <= ctx.clock() || row.status !== 0) return null;
  if ((await checkSessionActivity(ctx, { ...row, sessionId: claims.sessionId })) !== 'ok') return null;
  const { admin, permissions } = await cachedAtGeneration(ctx, row.generation ?? 0, `user:${row.userId}`, () =>
    permissionsOf(ctx.db, row.userId),
  );
  return {
    authGeneration: row.generation ?? 0,
    userId: row.userId,
    userName: row.userName,
    name: row.name,
    deptId: row.deptId,
    sessionId: claims.sessionId,
    admin,
    permissions,
    setPasswordMust: row.setPasswordMust,
  };
}

export function installAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('currentUser', null);

  app.addHook('onRequest', async (request) => {
    if (!needsToken(request.url)) return;
    const token = bearer(request);
    const user = token ? await loadCurrentUser(ctx, token) : null;
    if (!user) throw AppError.unauthorized();
    user.ip = request.ip;
    request.currentUser = user;
  });

  app.addHook('preHandler', async (request) => {
    const user = request.currentUser;
    if (!user) return;
    const config = request.routeOptions.config;
    if (user.setPasswordMust && !config.allowWhilePasswordMustChange) {
      throw AppError.forbidden('auth.password_must_change', '请先修改初始密码');
    }
    const required = config.permission;
    if (required && !hasAnyPermission(user.permissions, typeof required === 'string' ? [required] : required)) {
      throw AppError.forbidden();
    }
  });
}

/**
 * For routes outside the global token check (the API documentation): a signed-in system
 * administrator only; 401 without a valid token, 403 for anyone else.
 */
export function requireAdministrator(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    const token = bearer(request);
    const user = token ? await loadCurrentUser(ctx, token) : null;
    if (!user) throw AppError.unauthorized();
    if (!user.admin) throw AppError.forbidden();
  };
}

export function requireUser(request: FastifyRequest): CurrentUser {
  if (!request.currentUser) throw AppError.unauthorized();
  return request.currentUser;
}
