import { and, eq, isNull, ne } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { sessions } from '../../db/schema/index.js';

/**
 * Ends every live session of a user (optionally but one): their tokens stop at the next request. Their realtime
 * sockets are closed by the caller once this is committed (`ctx.realtime.endSessions`): closed earlier, a client
 * could reconnect before the revocation is visible.
 */
export async function revokeSessionsOf(ctx: AppContext, userId: number, except?: string) {
  await ctx.db
    .update(sessions)
    .set({ revokedAt: ctx.clock() })
    .where(
      and(eq(sessions.userId, userId), isNull(sessions.revokedAt), except ? ne(sessions.sessionId, except) : undefined),
    );
}
