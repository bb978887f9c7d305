import { eq } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { verifyPassword } from '../../shared/password.js';
import { revokeSessionsOf } from './session.service.js';

/**
 * Every place a password is typed counts in one store (the database's kv_entries, or Redis): sign-in and the
 * re-entries inside a session (electronic signature, password change, emergency and full unblinding). Without
 * this a stolen session could guess the password through a re-entry as fast as argon2 answers, never meeting the
 * sign-in lockout (docs/decisions.md, "Password re-entry counts with sign-in").
 */
export const MAX_FAILED_LOGINS = 5;
export const LOCK_MS = 15 * 60 * 1000;
/** Failures a person may make in a row (a typo, caps lock) before each next try has to wait. */
export const FREE_FAILURES = 1;

/**
 * Counters are kept per user name AND address: an anonymous caller elsewhere can use up only
 * its own attempts, never lock the administrator out of every other address.
 */
const pair = (userName: string, ip: string) => `${userName}|${ip}`;
const failKey = (userName: string, ip: string) => `login:fail:${pair(userName, ip)}`;
const lockKey = (userName: string, ip: string) => `login:lock:${pair(userName, ip)}`;
const waitKey = (userName: string, ip: string) => `login:wait:${pair(userName, ip)}`;
/**
 * Re-entries are also counted per user whatever the address: only a holder of one of the user's sessions can
 * add to this count, so it may lock the user everywhere, and a thief changing address gains nothing.
 */
const sessionFailKey = (userId: number) => `reauth:fail:${userId}`;
const sessionLockKey = (userId: number) => `reauth:lock:${userId}`;

/** The wait after the nth failure: 0 for the first, then 2, 4, 8 … seconds. */
export function slowdownMs(failures: number): number {
  return failures <= FREE_FAILURES ? 0 : 1000 * 2 ** (failures - FREE_FAILURES);
}

export interface PasswordAttempt {
  userName: string;
  ip: string;
  /** A password re-entered inside a session of this user: counted per user too, and the limit ends the sessions. */
  sessionUserId?: number;
}

export type AttemptOutcome = { ok: true } | { ok: false; attemptsLeft: number };

const lockedError = (minutes: number) =>
  new AppError(423, 'auth.locked', `密码错误次数过多，账号已锁定，请${minutes}分钟后再试`);

function minutesLeft(unlockAt: number, now: Date) {
  return Math.max(1, Math.ceil((unlockAt - now.getTime()) / 60000));
}

/** When the lock on this attempt ends (ms), or 0: the user name at this address, or inside a session the user. */
async function lockedUntil(ctx: AppContext, attempt: PasswordAttempt): Promise<number> {
  const locks = [await ctx.kv.get(lockKey(attempt.userName, attempt.ip))];
  if (attempt.sessionUserId !== undefined) locks.push(await ctx.kv.get(sessionLockKey(attempt.sessionUserId)));
  return Math.max(0, ...locks.map(Number).filter((at) => at > 0));
}

async function refuseWhileLocked(ctx: AppContext, attempt: PasswordAttempt, now: Date) {
  const unlockAt = await lockedUntil(ctx, attempt);
  if (unlockAt > 0) throw lockedError(minutesLeft(unlockAt, now));

  // Slowed down, not yet locked: refused before the password is even checked, so the wait
  // bounds the guessing rate and does not count as another failure.
  const waitUntil = Number(await ctx.kv.get(waitKey(attempt.userName, attempt.ip)));
  if (waitUntil > now.getTime()) {
    throw new AppError(429, 'auth.slow_down', '请求过于频繁，请稍后再试', {
      retryAfter: Math.ceil((waitUntil - now.getTime()) / 1000),
    });
  }
}

/**
 * Checks one typed password (`isRight`) under the shared failure count. Refuses with 423 while the user name is
 * locked at this address (or, inside a session, anywhere) and with 429 during the slow-down wait; after the
 * fifth failure in 15 minutes locks for 15 minutes (423) and, for a re-entry, revokes every session of the user
 * so a stolen token stops at its next request. A right password clears the counts, as a successful sign-in does.
 * The attempt is counted before the password is checked, so concurrent guesses cannot all slip in under the limit.
 */
export async function attemptPassword(
  ctx: AppContext,
  attempt: PasswordAttempt,
  isRight: () => Promise<boolean>,
): Promise<AttemptOutcome> {
  const now = ctx.clock();
  await refuseWhileLocked(ctx, attempt, now);
  const { userName, ip, sessionUserId } = attempt;
  const inSession = sessionUserId !== undefined;
  const counts = [await ctx.kv.incr(failKey(userName, ip), LOCK_MS)];
  if (inSession) counts.push(await ctx.kv.incr(sessionFailKey(sessionUserId), LOCK_MS));
  const failures = Math.max(...counts);
  // Counted before the password is checked, so concurrent guesses cannot all slip in under the limit: an attempt
  // counted past it, or one that passed the lock check just before another attempt locked, is not checked at all.
  // Past the limit: concurrent attempts interleave the two counts, so none of them may have met it exactly and
  // checked the fifth password; the lock and the revocation are then applied here, the same way.
  if (failures > MAX_FAILED_LOGINS) await lockOut(ctx, attempt, now);
  if ((await lockedUntil(ctx, attempt)) > 0) throw lockedError(LOCK_MS / 60000);

  if (await isRight()) {
    await ctx.kv.del(failKey(userName, ip));
    await ctx.kv.del(waitKey(userName, ip));
    if (inSession) await ctx.kv.del(sessionFailKey(sessionUserId));
    return { ok: true };
  }
  if (failures >= MAX_FAILED_LOGINS) await lockOut(ctx, attempt, now);
  const wait = slowdownMs(failures);
  if (wait > 0) await ctx.kv.set(waitKey(userName, ip), String(now.getTime() + wait), wait);
  return { ok: false, attemptsLeft: MAX_FAILED_LOGINS - failures };
}

/** The limit reached: locked for 15 minutes (423) and, for a re-entry, every session of the user revoked. */
async function lockOut(ctx: AppContext, attempt: PasswordAttempt, now: Date): Promise<never> {
  const { userName, ip, sessionUserId } = attempt;
  // The lock first, then the counts go: an attempt counted in between finds the lock.
  const unlockAt = String(now.getTime() + LOCK_MS);
  await ctx.kv.set(lockKey(userName, ip), unlockAt, LOCK_MS);
  if (sessionUserId !== undefined) await ctx.kv.set(sessionLockKey(sessionUserId), unlockAt, LOCK_MS);
  await ctx.kv.del(failKey(userName, ip));
  await ctx.kv.del(waitKey(userName, ip));
  if (sessionUserId !== undefined) {
    await ctx.kv.del(sessionFailKey(sessionUserId));
    await revokeSessionsOf(ctx, sessionUserId);
    ctx.realtime.endSessions(sessionUserId);
  }
  throw lockedError(LOCK_MS / 60000);
}

/**
 * The signed-in user types the password again (electronic signature, password change, unblinding: 21 CFR Part 11
 * §11.200 asks the signer to prove identity at each signing). `wrong` is the call's own answer to a wrong password
 * below the limit; the limit and the lock answer as sign-in does (423), and the limit ends the user's sessions.
 */
export async function reauthenticate(
  ctx: AppContext,
  user: CurrentUser,
  password: string,
  wrong: () => AppError,
): Promise<void> {
  const outcome = await attemptPassword(
    ctx,
    { userName: user.userName, ip: user.ip ?? '', sessionUserId: user.userId },
    async () => {
      const [account] = await ctx.db
        .select({ passwordHash: users.passwordHash })
        .from(users)
        .where(eq(users.userId, user.userId));
      return account !== undefined && (await verifyPassword(account.passwordHash, password));
    },
  );
  if (!outcome.ok) throw wrong();
}
