import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createFieldCrypto, loadDataKey, parseDataKey } from './field-crypto.js';

describe('field encryption of patient identifiers', () => {
  const key = crypto.randomBytes(32);

  it('AES-256-GCM with a fresh IV per value: same number, different ciphertexts, both readable', () => {
    const fc = createFieldCrypto(key);
    const a = fc.encrypt('11010519491231002X');
    const b = fc.encrypt('11010519491231002X');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9+/=]{16}\.[A-Za-z0-9+/=]{24}\.[A-Za-z0-9+/=]+$/);
    expect(a).not.toContain('110105');
    expect(fc.decrypt(a)).toBe('11010519491231002X');
    expect(fc.decrypt(b)).toBe('11010519491231002X');
  });

  it('a changed ciphertext or another key is refused, not decrypted to garbage', () => {
    const fc = createFieldCrypto(key);
    const [v, iv, tag, data] = fc.encrypt('11010519491231002X').split('.') as [string, string, string, string];
    const flipped = Buffer.from(data, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => fc.decrypt([v, iv, tag, flipped.toString('base64')].join('.'))).toThrow();
    expect(() => createFieldCrypto(crypto.randomBytes(32)).decrypt([v, iv, tag, data].join('.'))).toThrow();
  });

  it('the lookup hash is keyed: stable for one key, different for another, never the plain SHA-256', () => {
    const fc = createFieldCrypto(key);
    expect(fc.hash('11010519491231002X')).toBe(fc.hash('11010519491231002X'));
    expect(fc.hash('11010519491231002X')).toMatch(/^[0-9a-f]{64}$/);
    expect(createFieldCrypto(crypto.randomBytes(32)).hash('11010519491231002X')).not.toBe(
      fc.hash('11010519491231002X'),
    );
    expect(fc.hash('11010519491231002X')).not.toBe(
      crypto.createHash('sha256').update('11010519491231002X').digest('hex'),
    );
  });

  it('EDC_DATA_KEY takes 64 hex characters or base64 of 32 bytes and says what is wrong otherwise', () => {
    expect(parseDataKey('ab'.repeat(32))).toHaveLength(32);
    expect(parseDataKey(key.toString('base64'))).toEqual(key);
    expect(parseDataKey(key.toString('base64url'))).toEqual(key);
    expect(() => loadConfig({ EDC_DATA_KEY: 'secret' })).toThrow(
      /EDC_DATA_KEY: must be 64 hex characters or the base64 of 32 random bytes/,
    );
    expect(loadConfig({ EDC_DATA_KEY: 'ab'.repeat(32) }).dataKey).toBe('ab'.repeat(32));
  });

  it('without EDC_DATA_KEY the key is generated once into the data directory, readable only by its owner', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-key-'));
    try {
      const first = loadDataKey(dir);
      expect(first).toHaveLength(32);
      expect(fs.statSync(path.join(dir, 'data-key')).mode & 0o777).toBe(0o600);
      expect(loadDataKey(dir)).toEqual(first);
      expect(loadDataKey(dir, 'cd'.repeat(32))).toEqual(Buffer.from('cd'.repeat(32), 'hex'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
