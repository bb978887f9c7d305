import type { AppContext } from '../../app-context.js';
import { lockRefusals } from './lock-gate.js';

/**
 * GET /api/business/lock/state: what holds one casebook or one form record right now, for the page's 🔒 and its
 * disabled buttons. Answered by the writers' own gate (lock-gate.ts), so the page says exactly what a save would.
 */
export async function lockState(
  ctx: AppContext,
  studyId: number,
  target: { subjectRecordId?: number; crfDataRecordId?: number },
) {
  const refusal = (await lockRefusals(ctx.db, studyId, [target]))(target);
  if (!refusal) return { locked: false, frozen: false, message: null, lock: null };
  const data = refusal.data as { lock?: unknown } | null;
  return {
    locked: true,
    frozen: refusal.code === 'study.frozen',
    message: refusal.message,
    lock: data?.lock ?? null,
  };
}
