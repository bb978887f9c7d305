import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEED_PATTERN, createRng, deriveSeed, newSeed, sha256Hex, xoshiro128StarStar } from './rng.js';

describe('seeded generator', () => {
  it('SHA-256 matches the FIPS 180-4 test vectors', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    // UTF-8, not UTF-16: a stratum label may be Chinese.
    expect(sha256Hex('随机')).toHaveLength(64);
  });

  it('xoshiro128** matches the reference implementation from state {1, 2, 3, 4}', () => {
    const next = xoshiro128StarStar(new Uint32Array([1, 2, 3, 4]));
    expect([next(), next(), next(), next()]).toEqual([11520, 0, 5927040, 70819200]);
  });

  it('is pinned: these outputs must never change, or recorded seeds stop reproducing their lists', () => {
    const rng = createRng('00112233445566778899aabbccddeeff');
    expect(Array.from({ length: 8 }, () => rng.nextInt(1000))).toEqual(PINNED_INTS);
    expect(deriveSeed('00112233445566778899aabbccddeeff', 'stratum:')).toBe(PINNED_DERIVED);
  });

  it('same seed, same sequence; different seeds, different sequences', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (s1, s2) => {
        const a = createRng(s1);
        const b = createRng(s1);
        const xs = Array.from({ length: 5 }, () => a.nextInt(2 ** 32));
        expect(Array.from({ length: 5 }, () => b.nextInt(2 ** 32))).toEqual(xs);
        if (s1 !== s2) {
          const c = createRng(s2);
          expect(Array.from({ length: 5 }, () => c.nextInt(2 ** 32))).not.toEqual(xs);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('nextInt stays in range and nextFloat in [0, 1)', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 2 ** 32 }), (seed, n) => {
        const rng = createRng(seed);
        for (let i = 0; i < 20; i++) {
          const x = rng.nextInt(n);
          expect(Number.isInteger(x) && x >= 0 && x < n).toBe(true);
          const f = rng.nextFloat();
          expect(f >= 0 && f < 1).toBe(true);
        }
      }),
      { numRuns: 50 },
    );
    expect(() => createRng('x').nextInt(0)).toThrow(RangeError);
  });

  it('nextInt is uniform (chi-square, 6 cells, 60 000 draws)', () => {
    const rng = createRng(newSeed());
    const cells = new Array<number>(6).fill(0);
    for (let i = 0; i < 60000; i++) cells[rng.nextInt(6)]!++;
    const chi = cells.reduce((s, o) => s + (o - 10000) ** 2 / 10000, 0);
    // 5 degrees of freedom: P(χ² > 25.7) ≈ 1e-4.
    expect(chi).toBeLessThan(25.7);
  });

  it('newSeed gives 32 hex chars from the CSPRNG', () => {
    const a = newSeed();
    expect(a).toMatch(SEED_PATTERN);
    expect(newSeed()).not.toBe(a);
  });
});

const PINNED_INTS = [577, 370, 42, 39, 148, 338, 942, 737];
// = first 32 hex of `echo -n '00112233445566778899aabbccddeeff:stratum:' | sha256sum`
const PINNED_DERIVED = 'cd26817d190e3d8bee369e0d28e5d146';
