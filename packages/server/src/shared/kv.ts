import { Redis } from 'ioredis';

/**
 * Short-lived shared state (captcha answers, sign-in failure counters). In memory for one
 * process; in Redis when REDIS_URL is set so several app servers can share it.
 */
export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Read and delete in one step, so a captcha answer can be used once only. */
  take(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** Increment a counter; the TTL starts with the first increment. */
  incr(key: string, ttlMs: number): Promise<number>;
  close(): Promise<void>;
}

export function memoryStore(now: () => number = Date.now): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, ttlMs) => {
      entries.set(key, { value, expiresAt: now() + ttlMs });
    },
    take: async (key) => {
      const value = live(key)?.value ?? null;
      entries.delete(key);
      return value;
    },
    del: async (key) => {
      entries.delete(key);
    },
    incr: async (key, ttlMs) => {
      const entry = live(key);
      const next = entry ? Number(entry.value) + 1 : 1;
      entries.set(key, { value: String(next), expiresAt: entry?.expiresAt ?? now() + ttlMs });
      return next;
    },
    close: async () => clearInterval(sweep),
  };
}

export function redisStore(url: string): KeyValueStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const prefix = 'edc:';
  return {
    get: (key) => redis.get(prefix + key),
    set: async (key, value, ttlMs) => {
      await redis.set(prefix + key, value, 'PX', ttlMs);
    },
    take: async (key) => {
      const [[, value]] = (await redis.multi().get(prefix + key).del(prefix + key).exec()) as [[unknown, string | null]];
      return value;
    },
    del: async (key) => {
      await redis.del(prefix + key);
    },
    incr: async (key, ttlMs) => {
      const count = await redis.incr(prefix + key);
      if (count === 1) await redis.pexpire(prefix + key, ttlMs);
      return count;
    },
    close: async () => {
      await redis.quit();
    },
  };
}
