import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import { loadCommonJs } from './load-common-js.js';
import type { Db } from '../db/client.js';
import { kvEntries } from '../db/schema/index.js';

/**
 * Short-lived shared state (captcha answers, sign-in failure counters and lockouts). In the database
 * by default, in Redis when REDIS_URL is set: either way every app server sees the same entries.
 * In memory only for unit tests of a single process.
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
  /** The Redis connection behind the store, if any: per-address rate limits count there too (app.ts). */
  readonly redis?: { readonly client: Redis; readonly prefix: string };
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

/** `prefix` keeps installations (or test runs) sharing one Redis apart. */
export function redisStore(url: string, prefix = 'edc:'): KeyValueStore {
  const { Redis } = loadCommonJs('ioredis') as typeof IORedis;
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  return {
    redis: { client: redis, prefix },
    get: (key) => redis.get(prefix + key),
    set: async (key, value, ttlMs) => {
      await redis.set(prefix + key, value, 'PX', ttlMs);
    },
    take: async (key) => {
      const [[, value]] = (await redis
        .multi()
        .get(prefix + key)
        .del(prefix + key)
        .exec()) as [[unknown, string | null]];
      return value;
    },
    del: async (key) => {
      await redis.del(prefix + key);
    },
    incr: async (key, ttlMs) => {
      // Created with its expiry in the same transaction: a crash between two calls can't leave
      // a counter that never expires (a permanent lockout).
      const results = (await redis
        .multi()
        .set(prefix + key, '0', 'PX', ttlMs, 'NX')
        .incr(prefix + key)
        .exec()) as [[unknown, unknown], [unknown, number]];
      return results[1][1];
    },
    close: async () => {
      await redis.quit();
    },
  };
}

/**
 * The store when no Redis is configured: rows in `kv_entries`, so sign-in failure counters and
 * lockouts outlive a restart and are shared by every app server on one database.
 */
export function databaseStore(db: Db, now: () => number = Date.now): KeyValueStore {
  const at = (ms: number) => new Date(ms);
  const live = (key: string) => and(eq(kvEntries.key, key), gt(kvEntries.expiresAt, at(now())));
  const sweep = setInterval(() => {
    db.delete(kvEntries)
      .where(lte(kvEntries.expiresAt, at(now())))
      .catch(() => undefined);
  }, 60_000);
  sweep.unref();
  return {
    get: async (key) => {
      const [row] = await db.select({ value: kvEntries.value }).from(kvEntries).where(live(key));
      return row?.value ?? null;
    },
    set: async (key, value, ttlMs) => {
      const expiresAt = at(now() + ttlMs);
      await db
        .insert(kvEntries)
        .values({ key, value, expiresAt })
        .onConflictDoUpdate({ target: kvEntries.key, set: { value, expiresAt } });
    },
    take: async (key) => {
      const [row] = await db.delete(kvEntries).where(eq(kvEntries.key, key)).returning();
      return row && row.expiresAt.getTime() > now() ? row.value : null;
    },
    del: async (key) => {
      await db.delete(kvEntries).where(eq(kvEntries.key, key));
    },
    incr: async (key, ttlMs) => {
      const t = at(now());
      // One statement, so concurrent failures from several app servers each count.
      const [row] = await db
        .insert(kvEntries)
        .values({ key, value: '1', expiresAt: at(now() + ttlMs) })
        .onConflictDoUpdate({
          target: kvEntries.key,
          set: {
            value: sql`case when ${kvEntries.expiresAt} <= ${t} then '1' else (${kvEntries.value}::integer + 1)::text end`,
            expiresAt: sql`case when ${kvEntries.expiresAt} <= ${t} then excluded.expires_at else ${kvEntries.expiresAt} end`,
          },
        })
        .returning({ value: kvEntries.value });
      return Number(row!.value);
    },
    close: async () => clearInterval(sweep),
  };
}
