import { desc, eq } from 'drizzle-orm';
import { ACCOUNT_POLICY_MSG, isPasswordAged } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { passwordHistory, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { verifyPassword } from '../../shared/password.js';
import { readSecuritySettings } from '../system/security-settings.service.js';

/**
 * Password aging and history (issue 36). The history keeps every replaced hash; "the last N passwords" are the
 * current one and the N-1 before it, so with N = 5 the sixth password back may be chosen again.
 */

/**
 * Refuses a new password equal to one of the user's last N (系统设置, 0: no check). Checked by argon2 verification
 * against each stored hash (each has its own salt): N verifications, at most about N × 70 ms.
 */
export async function refuseRecentPassword(ctx: AppContext, userId: number, newPassword: string) {
  const { passwordHistoryCount: count } = await readSecuritySettings(ctx.db);
  if (count <= 0) return;
  const [current] = await ctx.db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.userId, userId));
  const earlier =
    count > 1
      ? await ctx.db
          .select({ passwordHash: passwordHistory.passwordHash })
          .from(passwordHistory)
          .where(eq(passwordHistory.userId, userId))
          .orderBy(desc(passwordHistory.createdAt), desc(passwordHistory.id))
          .limit(count - 1)
      : [];
  for (const { passwordHash } of [...(current ? [current] : []), ...earlier]) {
    if (await verifyPassword(passwordHash, newPassword)) {
      throw AppError.badRequest('auth.password_reused', ACCOUNT_POLICY_MSG.passwordReused(count));
    }
  }
}

/** Keeps the hash being replaced, in the transaction that replaces it (a change by the user or a reset). */
export async function keepReplacedPassword(tx: Db, userId: number, at: Date) {
  const [current] = await tx.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.userId, userId));
  if (current) await tx.insert(passwordHistory).values({ userId, passwordHash: current.passwordHash, createdAt: at });
}

/**
 * At sign-in: a password older than the aging limit must be replaced before anything else, through the same
 * must-change flag as a first sign-in (the web's must-change dialog, every other route refused until then).
 */
export async function demandChangeIfAged(
  ctx: AppContext,
  user: { userId: number; passwordChangedAt: Date | null; setPasswordMust: boolean },
) {
  if (user.setPasswordMust) return;
  const { passwordMaxAgeDays } = await readSecuritySettings(ctx.db);
  if (!isPasswordAged(user.passwordChangedAt, passwordMaxAgeDays, ctx.clock())) return;
  await ctx.db.update(users).set({ setPasswordMust: true }).where(eq(users.userId, user.userId));
}
