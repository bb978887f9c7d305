import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostSyncs, openDurablePglite } from './client.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-durable-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('embedded database durability', () => {
  it('runs with fsync on, and every commit is synced to the host disk before it is acknowledged', async () => {
    const client = await openDurablePglite(dir);
    try {
      expect((await client.query<{ fsync: string }>('show fsync')).rows[0]!.fsync).toBe('on');
      expect((await client.query<{ wal_sync_method: string }>('show wal_sync_method')).rows[0]!.wal_sync_method).toBe(
        'fsync',
      );
      await client.exec('create table saves (id serial primary key, v text)');
      const before = hostSyncs.count;
      for (let i = 0; i < 5; i++) await client.query('insert into saves (v) values ($1)', [`v${i}`]);
      expect(hostSyncs.count - before).toBeGreaterThanOrEqual(5);
    } finally {
      await client.close();
    }
    const reopened = await openDurablePglite(dir);
    try {
      expect((await reopened.query<{ n: number }>('select count(*)::int as n from saves')).rows[0]!.n).toBe(5);
    } finally {
      await reopened.close();
    }
  });
});
