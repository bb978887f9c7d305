import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The token signing secret: given in the environment, or generated on first start and kept
 * in the data directory (mode 600) so tokens survive a restart.
 */
export function loadSigningSecret(dataDir: string, given?: string): Uint8Array {
  if (given) return new TextEncoder().encode(given);
  const file = path.join(dataDir, 'jwt-secret');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, crypto.randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return new TextEncoder().encode(fs.readFileSync(file, 'utf8').trim());
}
