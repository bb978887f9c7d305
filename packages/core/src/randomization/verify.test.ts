import { describe, expect, it } from 'vitest';
import { generateBlockList } from './allocation.js';
import { verifyAllocationList } from './verify.js';
import { SEED, SEX, SITE, config } from './test-fixtures.js';

describe('verifying a list from its seed', () => {
  const c = config({ method: 'stratified_block', blockSizes: [4, 6], factors: [SITE, SEX] });

  it('a list as generated verifies, in any row order', () => {
    const list = generateBlockList(c, SEED, 'site=S2|sex=F', 50);
    expect(verifyAllocationList(c, SEED, 'site=S2|sex=F', [...list].reverse())).toBeNull();
  });

  it('reports the first slot that differs', () => {
    const list = generateBlockList(c, SEED, 'site=S2|sex=F', 50);
    const tampered = list.map((s) => (s.slot === 17 ? { ...s, arm: s.arm === 'A' ? 'B' : 'A' } : s));
    expect(verifyAllocationList(c, SEED, 'site=S2|sex=F', tampered)).toEqual({
      slot: 17,
      expected: list[16],
      actual: tampered[16],
    });
    // The same list claimed for another stratum or seed does not verify.
    expect(verifyAllocationList(c, SEED, 'site=S1|sex=F', list)).not.toBeNull();
    expect(verifyAllocationList(c, 'ffeeddccbbaa99887766554433221100', 'site=S2|sex=F', list)).not.toBeNull();
  });
});
