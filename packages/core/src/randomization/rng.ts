import type { Rng } from './types.js';

/**
 * The deterministic generator behind every allocation (issue 15).
 *
 * An auditor must be able to regenerate a list from its recorded seed on any machine, years
 * later, so the algorithm is spelled out here rather than borrowed from a library whose internals
 * may change between versions:
 * - state: the first 16 bytes of SHA-256 of the seed text (UTF-8), read as four big-endian
 *   32-bit words; SHA-256 can be checked with any tool (`sha256sum`).
 * - generator: xoshiro128** (Blackman & Vigna, 2018), 32-bit output.
 * - integers in [0, n): rejection sampling on the 32-bit output (no modulo bias).
 * - floats in [0, 1): 53 bits from two outputs, (a >>> 5) · 2^26 + (b >>> 6), divided by 2^53.
 * - derived seeds: deriveSeed(seed, label) = first 32 hex chars of SHA-256(seed + ':' + label).
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 (FIPS 180-4) of a UTF-8 string, synchronous and dependency-free, as 64 hex chars. */
export function sha256Hex(text: string): string {
  return toHex(sha256Bytes(new TextEncoder().encode(text)));
}

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 (FIPS 180-4) of bytes: the 32-byte digest. */
export function sha256Bytes(msg: Uint8Array): Uint8Array {
  const bitLen = msg.length * 8;
  const padded = new Uint8Array(((msg.length + 9 + 63) >> 6) << 6);
  padded.set(msg);
  padded[msg.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLen / 0x100000000));
  view.setUint32(padded.length - 4, bitLen >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i]! + w[i]!) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
    h[5] = (h[5]! + f) >>> 0;
    h[6] = (h[6]! + g) >>> 0;
    h[7] = (h[7]! + hh) >>> 0;
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, h[i]!);
  return digest;
}

/**
 * HMAC-SHA-256 (RFC 2104) of a UTF-8 message under a UTF-8 key, as 64 hex chars: what
 * `printf '%s' MESSAGE | openssl dgst -sha256 -hmac KEY` prints.
 */
export function hmacSha256Hex(key: string, message: string): string {
  const encoder = new TextEncoder();
  let k: Uint8Array = encoder.encode(key);
  if (k.length > 64) k = sha256Bytes(k);
  const block = (pad: number) => {
    const b = new Uint8Array(64).fill(pad);
    for (let i = 0; i < k.length; i++) b[i] = k[i]! ^ pad;
    return b;
  };
  const concat = (a: Uint8Array, b: Uint8Array) => {
    const c = new Uint8Array(a.length + b.length);
    c.set(a);
    c.set(b, a.length);
    return c;
  };
  const inner = sha256Bytes(concat(block(0x36), encoder.encode(message)));
  return toHex(sha256Bytes(concat(block(0x5c), inner)));
}

/** Seeds are 32 lowercase hex chars (128 bits), as newSeed gives and as recorded with a list. */
export const SEED_PATTERN = /^[0-9a-f]{32}$/;

/**
 * xoshiro128** (Blackman & Vigna, https://prng.di.unimi.it/xoshiro128starstar.c) over a 4-word
 * state that it advances in place; each call gives the next unsigned 32-bit output.
 */
export function xoshiro128StarStar(s: Uint32Array): () => number {
  return () => {
    const s0 = s[0]!;
    const s1 = s[1]!;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    s[2] = s[2]! ^ s0;
    s[3] = s[3]! ^ s1;
    s[1] = s1 ^ s[2]!;
    s[0] = s0 ^ s[3]!;
    s[2] = s[2]! ^ t;
    const s3 = s[3]!;
    s[3] = (s3 << 11) | (s3 >>> 21);
    return result;
  };
}

/** xoshiro128** seeded from SHA-256 of the seed text; see the module comment. */
export function createRng(seed: string): Rng {
  const digest = sha256Hex(seed);
  const s = new Uint32Array(4);
  for (let i = 0; i < 4; i++) s[i] = parseInt(digest.slice(i * 8, i * 8 + 8), 16);
  // An all-zero state would stick at zero; SHA-256 giving 128 zero bits will not happen, but be total.
  if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;

  const next = xoshiro128StarStar(s);

  return {
    nextInt(maxExclusive: number): number {
      if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > 0x100000000) {
        throw new RangeError(`nextInt: bound must be an integer in 1..2^32, got ${maxExclusive}`);
      }
      // Reject the top partial range so every residue is equally likely.
      const limit = 0x100000000 - (0x100000000 % maxExclusive);
      let x = next();
      while (x >= limit) x = next();
      return x % maxExclusive;
    },
    nextFloat(): number {
      const a = next() >>> 5;
      const b = next() >>> 6;
      return (a * 67108864 + b) / 9007199254740992;
    },
  };
}

/** A per-stratum or per-run seed: first 32 hex chars of SHA-256(seed + ':' + label). */
export function deriveSeed(seed: string, label: string): string {
  return sha256Hex(`${seed}:${label}`).slice(0, 32);
}

/** A fresh 128-bit seed from the platform CSPRNG (Web Crypto; Node 20 and browsers). */
export function newSeed(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
