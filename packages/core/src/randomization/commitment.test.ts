import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocationCommitment, allocationCommitmentMessage, verifyAllocationCommitment } from './commitment.js';
import { hmacSha256Hex, newSeed, sha256Hex } from './rng.js';

describe('allocation commitment', () => {
  it('HMAC-SHA-256 matches RFC 4231 and openssl (a key longer than a block is hashed first; UTF-8 text)', () => {
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    // printf '%s' '随机分组' | openssl dgst -sha256 -hmac "$(printf 'k%.0s' $(seq 1 100))"
    expect(hmacSha256Hex('k'.repeat(100), '随机分组')).toBe(
      '7f9fa7260acc3c21275c5b44e2a0c5521db1edff8521d69c79e6a539d7d6ed5d',
    );
  });

  it('RAND-02: the commitment is the HMAC of a fixed JSON text under the seed, which an auditor recomputes with openssl', () => {
    const allocation = { randomizationNo: 'R0001', kitCode: 'ABCDEFGHJK', arm: 'A', scores: null, chosenBy: null };
    expect(allocationCommitmentMessage(allocation)).toBe(
      '{"randomizationNo":"R0001","kitCode":"ABCDEFGHJK","arm":"A","scores":null,"chosenBy":null}',
    );
    // printf '%s' '<the text above>' | openssl dgst -sha256 -hmac 00112233445566778899aabbccddeeff
    const commitment = 'b8af1d6349399219ffdfccfd80d9d1757db7e35a6fdb3f5d046ab8373e72061e';
    expect(allocationCommitment('00112233445566778899aabbccddeeff', allocation)).toBe(commitment);
    expect(verifyAllocationCommitment('00112233445566778899aabbccddeeff', allocation, commitment)).toBe(true);
    expect(
      verifyAllocationCommitment('00112233445566778899aabbccddeeff', { ...allocation, arm: 'B' }, commitment),
    ).toBe(false);
  });

  it('RAND-02: without the seed, trying every arm code (with the true scores) never meets the commitment', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('A', 'B', 'C'),
        fc.stringMatching(/^[A-HJKMNP-Z2-9]{10}$/),
        fc.integer({ min: 1, max: 9999 }),
        (arm, kitCode, n) => {
          const seed = newSeed();
          const allocation = {
            randomizationNo: `R${String(n).padStart(4, '0')}`,
            kitCode,
            arm,
            scores: { A: 1, B: 0.5, C: 2 },
            chosenBy: 'random',
          };
          const recorded = allocationCommitment(seed, allocation);
          // The attack that recovered every arm from the old plain hash, and the same text keyed by guessable keys.
          for (const guess of ['A', 'B', 'C']) {
            const text = allocationCommitmentMessage({ ...allocation, arm: guess });
            expect(sha256Hex(text)).not.toBe(recorded);
            for (const key of ['', kitCode, allocation.randomizationNo, sha256Hex(seed)]) {
              expect(hmacSha256Hex(key, text)).not.toBe(recorded);
            }
          }
          expect(verifyAllocationCommitment(seed, allocation, recorded)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });
});
