import net from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../test/test-db.js';
import { databaseStore, memoryStore, redisStore, type KeyValueStore } from './kv.js';

async function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(6379, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function contract(name: string, make: () => KeyValueStore, advance: (ms: number) => Promise<void>) {
  describe(name, () => {
    const store = make();
    afterAll(() => store.close());
    const key = (k: string) => `test:${process.pid}:${Date.now()}:${k}`;

    it('stores, takes once and deletes', async () => {
      const k = key('a');
      await store.set(k, 'v', 10_000);
      expect(await store.get(k)).toBe('v');
      expect(await store.take(k)).toBe('v');
      expect(await store.take(k)).toBeNull();
      await store.set(k, 'w', 10_000);
      await store.del(k);
      expect(await store.get(k)).toBeNull();
    });

    it('counts within a window that starts at the first increment, then forgets', async () => {
      const k = key('n');
      expect(await store.incr(k, 300)).toBe(1);
      expect(await store.incr(k, 300)).toBe(2);
      await advance(400);
      expect(await store.get(k)).toBeNull();
      expect(await store.incr(k, 300)).toBe(1);
    });

    it('counts every one of concurrent increments', async () => {
      const k = key('c');
      const counts = await Promise.all(Array.from({ length: 8 }, () => store.incr(k, 10_000)));
      expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('does not hand out an expired value', async () => {
      const k = key('e');
      await store.set(k, 'old', 300);
      await advance(400);
      expect(await store.take(k)).toBeNull();
    });
  });
}

let now = 0;
contract(
  'memory store',
  () => memoryStore(() => now),
  async (ms) => {
    now += ms;
  },
);

const database = await openTestDatabase(inject('pgliteTemplate'));
afterAll(() => database.close());
let dbNow = Date.now();
contract(
  'database store (default without REDIS_URL)',
  () => databaseStore(database.db, () => dbNow),
  async (ms) => {
    dbNow += ms;
  },
);

if (await redisAnswers()) {
  contract(
    'redis store (REDIS_URL)',
    () => redisStore('redis://127.0.0.1:6379'),
    (ms) => new Promise((r) => setTimeout(r, ms)),
  );
}
