import { describe, expect, it } from 'vitest';
import { md5Hex } from './md5.js';

describe('md5Hex', () => {
  it('is MD5 of the UTF-8 bytes, across block boundaries', () => {
    // Expected digests from Node's crypto: texts that end near and across the 64-byte block boundary.
    const digests: Array<[string, string]> = [
      ['', 'd41d8cd98f00b204e9800998ecf8427e'],
      ['abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['基线', '79e32d6f86be07c75047ed87faa3e942'],
      ['术后随访（3个月）', 'a7710f1227df8eb915306d187b2e15af'],
      ['x'.repeat(55), '04364420e25c512fd958a70738aa8f72'],
      ['y'.repeat(56), '6c830a5d23df58dbe0171eb5639bf3e4'],
      ['z'.repeat(64), '3ecc49f9d9d6c263b4f0de7fc3f38aed'],
      ['阶'.repeat(100), 'ca4f5d6f12d962acd74bf7a565766fe5'],
    ];
    for (const [text, digest] of digests) expect(md5Hex(text)).toBe(digest);
  });
});
