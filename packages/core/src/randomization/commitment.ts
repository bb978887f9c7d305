import { hmacSha256Hex } from './rng.js';

/**
 * What a blinded assignment's audit row commits to, without telling it.
 *
 * The trail is read by every member, so while a study is blinded the assignment's row cannot hold the arm. It holds
 * `allocationHmac` = HMAC-SHA-256 under the version's seed of this message. The seed is secret until 全部揭盲 (the
 * configuration's row holds only its SHA-256, written before any patient is randomized), so nobody can test a
 * guessed arm against the commitment: a plain hash over a handful of arm codes could be inverted by trying each.
 * After 全部揭盲 the trail discloses the seeds and the allocations, and anyone can recompute every commitment.
 */
export interface AllocationCommitted {
  /** R0001… */
  randomizationNo: string;
  kitCode: string;
  arm: string;
  /** Minimization's score per arm; null for the other methods. */
  scores: Record<string, number> | null;
  /** Minimization's `minimum` / `random` / `tie`; null for the other methods. */
  chosenBy: string | null;
}

/** The committed text: JSON with the keys in this order and JavaScript's number formatting. */
export function allocationCommitmentMessage(a: AllocationCommitted): string {
  return JSON.stringify({
    randomizationNo: a.randomizationNo,
    kitCode: a.kitCode,
    arm: a.arm,
    scores: a.scores,
    chosenBy: a.chosenBy,
  });
}

/** The commitment written as `allocationHmac`: 64 hex characters. */
export function allocationCommitment(seed: string, a: AllocationCommitted): string {
  return hmacSha256Hex(seed, allocationCommitmentMessage(a));
}

/** True when the recorded commitment is exactly what the disclosed seed and allocation give. */
export function verifyAllocationCommitment(seed: string, a: AllocationCommitted, recorded: string): boolean {
  return allocationCommitment(seed, a) === recorded.toLowerCase();
}
