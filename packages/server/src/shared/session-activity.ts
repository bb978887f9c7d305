import { and, eq, isNull, lte, or } from 'drizzle-orm';
import { ACTIVITY_RECORD_MS, isAccountExpired, isSessionIdle, securitySettingValue, SECURITY_FIELDS } from '@ecrf/core';
import type { AppContext } from '../app-context.js';
import type { Db } from '../db/client.js';
import { sessions, sysConfigs } from '../db/schema/index.js';

/**
 * Account expiry and idle sign-out, as the per-request session check and the token refresh apply them
 * (issue 36). A session's activity is written at most once a minute, not on every request.
 */

/** What a session check reads besides the session's own validity. */
export interface SessionActivityRow {
  sessionId: string;
  expiresOn: string | null;
  lastActiveAt: Date | null;
  /** sys_configs' stored idle limit (text), null when never saved. */
  idleSetting: string | null;
}

export type SessionVerdict = 'ok' | 'account_expired' | 'idle';

/** The sys_configs field the session read joins in (one statement per request). */
export const IDLE_FIELD = SECURITY_FIELDS.idleTimeoutMinutes;

export async function storedIdleSetting(db: Db): Promise<string | null> {
  const [row] = await db
    .select({ fieldValue: sysConfigs.fieldValue })
    .from(sysConfigs)
    .where(eq(sysConfigs.fieldName, IDLE_FIELD));
  return row?.fieldValue ?? null;
}

/**
 * Judges a live session: an expired account's sessions stop at once; a session idle past the limit is revoked
 * (its realtime sockets closed) so that neither its access token nor its refresh token works again; an active
 * one has its activity recorded when the record is a minute old.
 */
export async function checkSessionActivity(ctx: AppContext, row: SessionActivityRow): Promise<SessionVerdict> {
  const now = ctx.clock();
  if (isAccountExpired(row.expiresOn, now)) return 'account_expired';
  // Sessions opened before activity was recorded (null) start being watched from their first request.
  const lastActive = row.lastActiveAt ?? new Date(now.getTime() - ACTIVITY_RECORD_MS);
  if (isSessionIdle(lastActive, securitySettingValue('idleTimeoutMinutes', row.idleSetting), now)) {
    await ctx.db
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.sessionId, row.sessionId), isNull(sessions.revokedAt)));
    ctx.realtime.endSession(row.sessionId);
    return 'idle';
  }
  if (now.getTime() - lastActive.getTime() >= ACTIVITY_RECORD_MS) {
    const stale = new Date(now.getTime() - ACTIVITY_RECORD_MS);
    // Conditional, so parallel requests of one session write it once.
    await ctx.db
      .update(sessions)
      .set({ lastActiveAt: now })
      .where(
        and(
          eq(sessions.sessionId, row.sessionId),
          or(isNull(sessions.lastActiveAt), lte(sessions.lastActiveAt, stale)),
        ),
      );
  }
  return 'ok';
}
