import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { localFileStorage } from './file-storage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-storage-test-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const read = async (stream: Readable | null) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('local file storage', () => {
  const storage = localFileStorage(root);

  it('puts, streams back, tells whether a key exists and deletes, by key under DATA_DIR', async () => {
    await storage.put('files/ab/ab12', Buffer.from('one'));
    await storage.put('files/cd/cd34', Readable.from([Buffer.from('t'), Buffer.from('wo')]));
    expect(fs.readFileSync(path.join(root, 'files/ab/ab12'), 'utf8')).toBe('one');
    expect(await read(await storage.get('files/cd/cd34'))).toBe('two');
    expect(await storage.exists('files/ab/ab12')).toBe(true);
    await storage.delete('files/ab/ab12');
    await storage.delete('files/ab/ab12');
    expect(await storage.exists('files/ab/ab12')).toBe(false);
    expect(await storage.get('files/ab/ab12')).toBeNull();
  });

  it('a failed write leaves nothing under the key, not even a part', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('half'));
        this.destroy(new Error('connection lost'));
      },
    });
    await expect(storage.put('files/ef/ef56', failing)).rejects.toThrow('connection lost');
    expect(await storage.exists('files/ef/ef56')).toBe(false);
    expect(fs.readdirSync(path.join(root, 'files/ef'))).toEqual([]);
  });

  it('refuses a key that could leave its root', async () => {
    for (const key of ['../etc/passwd', 'files/../../x', '/abs', 'files//x', 'Files/X']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('invalid storage key');
    }
  });
});
