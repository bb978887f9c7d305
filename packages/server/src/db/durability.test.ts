import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostSyncs, openDurablePglite } from './pglite-engine.js';

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

  it('a statement that turns synchronous_commit off for itself is not synced, and the next synced commit carries it to the disk', async () => {
    const client = await openDurablePglite(dir);
    try {
      await client.exec('create table marks (id int primary key, done boolean not null default false)');
      await client.query('insert into marks (id) values (1), (2)');
      const before = hostSyncs.count;
      for (let i = 0; i < 5; i++) {
        await client.query(
          `update marks set done = true from (select set_config('synchronous_commit', 'off', true)) as async_commit where id = 1`,
        );
      }
      expect(hostSyncs.count - before).toBe(0);
      await client.query('update marks set done = true where id = 2');
      expect(hostSyncs.count - before).toBeGreaterThanOrEqual(1);
      // Only that statement's own transaction: the session's setting is untouched.
      expect(
        (await client.query<{ synchronous_commit: string }>('show synchronous_commit')).rows[0]!.synchronous_commit,
      ).toBe('on');
    } finally {
      await client.close();
    }
    const reopened = await openDurablePglite(dir);
    try {
      const rows = (await reopened.query<{ id: number; done: boolean }>('select id, done from marks order by id')).rows;
      expect(rows).toEqual([
        { id: 1, done: true },
        { id: 2, done: true },
      ]);
    } finally {
      await reopened.close();
    }
  });
});
