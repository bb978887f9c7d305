import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore, redisStore, type KeyValueStore } from './kv.js';

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
  });
}

let now = 0;
contract('memory store', () => memoryStore(() => now), async (ms) => {
  now += ms;
});

if (await redisAnswers()) {
  contract('redis store (REDIS_URL)', () => redisStore('redis://127.0.0.1:6379'), (ms) => new Promise((r) => setTimeout(r, ms)));
}
