import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Encryption at rest of patient identifiers (PIPL art. 51: encryption of sensitive personal
 * information). One 32-byte data key, from EDC_DATA_KEY or generated once into DATA_DIR; two
 * keys are derived from it with HKDF so the value cipher and the lookup hash never share a key.
 */
export interface FieldCrypto {
  /** `v1.<iv>.<tag>.<ciphertext>` (base64 each): AES-256-GCM with a random 96-bit IV per value. */
  encrypt(plain: string): string;
  decrypt(stored: string): string;
  /** HMAC-SHA-256 (hex) of a normalised value: equal values compare equal without decrypting. */
  hash(plain: string): string;
}

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

export class DataKeyError extends Error {}

/** EDC_DATA_KEY: 64 hex characters or the base64 of 32 bytes. */
export function parseDataKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new DataKeyError('must be 64 hex characters or the base64 of 32 random bytes (e.g. `openssl rand -hex 32`)');
}

/**
 * The data key: given in the environment, or generated on first start into the data directory
 * (mode 600) like the token secret. Losing this file makes every stored ID number unreadable:
 * back it up with the database, but not in the same place.
 */
export function loadDataKey(dataDir: string, given?: string): Buffer {
  if (given) return parseDataKey(given);
  const file = path.join(dataDir, 'data-key');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, crypto.randomBytes(KEY_BYTES).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process started at the same moment and wrote it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  try {
    return parseDataKey(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof DataKeyError) throw new DataKeyError(`${file}: ${err.message}`);
    throw err;
  }
}

function derive(master: Buffer, info: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', master, Buffer.alloc(0), info, KEY_BYTES));
}

export function createFieldCrypto(master: Buffer): FieldCrypto {
  if (master.length !== KEY_BYTES) throw new DataKeyError(`the data key must be ${KEY_BYTES} bytes`);
  const encKey = derive(master, 'edc field encryption v1');
  const macKey = derive(master, 'edc field lookup hash v1');
  return {
    encrypt(plain) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', encKey, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(
        '.',
      );
    },
    decrypt(stored) {
      const [version, iv, tag, data] = stored.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) {
        throw new Error('unknown field encryption format');
      }
      const decipher = crypto.createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    },
    hash(plain) {
      return crypto.createHmac('sha256', macKey).update(plain, 'utf8').digest('hex');
    },
  };
}
