import { IDLE_WARNING_MS } from '@ecrf/core';

/**
 * The browser's side of idle sign-out (issue 36): when the person last did something (pointer, keys, wheel,
 * touch), shared by the tabs of the browser through localStorage so that working in one tab keeps the others
 * signed in; and what that means now. Time is read with Date.now(), so a test's fake clock moves it.
 */
export const LAST_ACTIVITY_KEY = 'edc.lastActivity';

/** localStorage is written at most this often while the pointer moves. */
const SHARE_EVERY_MS = 1_000;

let lastLocal = 0;
let lastShared = 0;

function readShared(): number {
  try {
    return Number(window.localStorage.getItem(LAST_ACTIVITY_KEY)) || 0;
  } catch {
    return 0;
  }
}

/** Something was done now (`force`: write through, e.g. 继续使用 or a sign-in). */
export function markActivity(now: number, force = false): void {
  lastLocal = Math.max(lastLocal, now);
  if (!force && now - lastShared < SHARE_EVERY_MS) return;
  lastShared = now;
  try {
    window.localStorage.setItem(LAST_ACTIVITY_KEY, String(now));
  } catch {
    // Storage refused: this tab keeps its own time.
  }
}

/** The latest activity in any tab of this browser. */
export function lastActivity(): number {
  return Math.max(lastLocal, readShared());
}

/** Forgets the recorded activity (tests; a new sign-in starts from its own moment). */
export function resetActivity(): void {
  lastLocal = 0;
  lastShared = 0;
  try {
    window.localStorage.removeItem(LAST_ACTIVITY_KEY);
  } catch {
    // Nothing stored.
  }
}

export type IdlePhase = { kind: 'active' } | { kind: 'warning'; secondsLeft: number } | { kind: 'expired' };

/** Active until a minute before the limit, then a warning counting down, then over. */
export function idlePhase(last: number, now: number, limitMs: number, warnMs = IDLE_WARNING_MS): IdlePhase {
  const left = last + limitMs - now;
  if (left <= 0) return { kind: 'expired' };
  if (left <= warnMs) return { kind: 'warning', secondsLeft: Math.ceil(left / 1000) };
  return { kind: 'active' };
}

/**
 * How often an active person's browser tells the server (which records activity once a minute and ends sessions
 * idle past the limit): often enough that filling a long form without saving never reads as idle on the server.
 */
export function heartbeatMs(limitMs: number): number {
  return Math.min(5 * 60_000, Math.max(20_000, Math.floor(limitMs / 3)));
}
