import type { RandomizationConfig } from './config.js';
import { generateBlockList } from './allocation.js';
import type { AllocationSlot } from './types.js';

export interface AllocationMismatch {
  /** 1-based slot where the recorded list first differs. */
  slot: number;
  /** What the seed gives at that position. */
  expected: AllocationSlot;
  actual: AllocationSlot;
}

/**
 * Regenerates a stratum's permuted-block list from its recorded seed and compares it with the
 * recorded slots (in slot order). Returns the first difference, or null when the list is exactly
 * what the seed gives. An uploaded list has no seed and cannot be verified this way.
 */
export function verifyAllocationList(
  config: RandomizationConfig,
  seed: string,
  stratum: string,
  slots: readonly AllocationSlot[],
): AllocationMismatch | null {
  const ordered = [...slots].sort((a, b) => a.slot - b.slot);
  const expected = generateBlockList(config, seed, stratum, ordered.length);
  for (let i = 0; i < ordered.length; i++) {
    const actual = ordered[i]!;
    const want = expected[i]!;
    if (
      actual.slot !== want.slot ||
      actual.arm !== want.arm ||
      actual.block !== want.block ||
      actual.blockSize !== want.blockSize
    ) {
      return { slot: want.slot, expected: want, actual };
    }
  }
  return null;
}
