import { eq } from 'drizzle-orm';
import { inject } from 'vitest';
import { buildApp } from '../app.js';
import type { AppContext } from '../app-context.js';
import { loadConfig, type Config } from '../config.js';
import { users } from '../db/schema/index.js';
import { createTokenService } from '../modules/auth/token.service.js';
import { createOutbox, type OutboxOptions } from '../modules/events/outbox.js';
import { createJobQueue, type JobQueueSetup } from '../modules/jobs/create-job-queue.js';
import { createRealtime, isolatedRealtimeKey } from '../modules/realtime/realtime.hub.js';
import { createFieldCrypto } from '../shared/field-crypto.js';
import { localFileStorage } from '../shared/file-storage.js';
import { s3FileStorage } from '../shared/s3-storage.js';
import { databaseStore, type KeyValueStore } from '../shared/kv.js';
import type { Database } from '../db/client.js';
import { TEST_ADMIN_PASSWORD, openTestDatabase } from './test-db.js';

export { TEST_ADMIN_PASSWORD };
export const ADMIN = '13800000000';

/** A clock tests can move forward to cross token lifetimes and lockout windows. */
export function testClock(start = new Date('2026-11-22T08:00:00Z')) {
  let now = start.getTime();
  const clock = () => new Date(now);
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export interface TestAppOptions {
  captcha?: boolean;
  /** Keep the seeded administrator's must-change-password flag (off by default). */
  keepAdminMustChange?: boolean;
  config?: Partial<Config>;
  /** The shared-state store (default: in the database, as in production without REDIS_URL); closed by close(). */
  kv?: KeyValueStore;
  /** An open database to build this app on (a second app server, a restart); left open by close(). */
  database?: Database;
  /** Job queue settings (BullMQ with config.redisUrl, its queue name, timings). */
  jobs?: Partial<JobQueueSetup>;
  /** The realtime Redis channel prefix: apps given the same one reach each other's sockets (with config.redisUrl). */
  realtimeKey?: string;
  /** Outbox timings (retry backoff, poll) for the tests of delivery itself. */
  events?: Omit<OutboxOptions, 'db' | 'listen'>;
}

export async function createTestApp(options: TestAppOptions = {}) {
  const database = options.database ?? (await openTestDatabase(inject('pgliteTemplate')));
  const clock = testClock();
  const config: Config = {
    ...loadConfig({ DATA_DIR: '/tmp/edc-test-unused', EDC_CAPTCHA: options.captcha ? 'on' : 'off' }),
    // Tests sign in far more often than a person; the limit itself has its own test.
    loginRateLimitPerMinute: 10_000,
    redcapApiRateLimitPerMinute: 10_000,
    ...options.config,
  };
  const files = config.s3 ? await s3FileStorage(config.s3) : localFileStorage(config.dataDir);
  const ctx: AppContext = {
    config,
    db: database.db,
    // The production default without REDIS_URL, so counters are tested where they really live.
    kv: options.kv ?? databaseStore(database.db, () => clock().getTime()),
    tokens: createTokenService(
      new TextEncoder().encode('test-secret-test-secret-test-secret!'),
      config.accessTokenSeconds,
      clock,
    ),
    fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)),
    files,
    clock,
    jobs: createJobQueue({
      db: database.db,
      files,
      redisUrl: config.redisUrl,
      clock,
      ...options.jobs,
    }),
    realtime: createRealtime({ redisUrl: config.redisUrl, key: options.realtimeKey ?? isolatedRealtimeKey() }),
    events: createOutbox({ db: database.db, listen: database.listen, ...options.events }),
  };
  if (!options.keepAdminMustChange) {
    await database.db.update(users).set({ setPasswordMust: false }).where(eq(users.userName, ADMIN));
  }
  const app = await buildApp(ctx);
  await app.ready();

  async function login(username = ADMIN, password = TEST_ADMIN_PASSWORD) {
    const res = await app.inject({ method: 'POST', url: '/api/ignore/sys/login', payload: { username, password } });
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.body}`);
    return res.json().data as {
      token: string;
      refreshToken: string;
      setPasswordMust: boolean;
      user: { userId: number };
    };
  }

  /** Inject with a bearer token, answering the parsed envelope and the status. */
  async function call(token: string, method: string, url: string, payload?: unknown) {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
  }

  return {
    app,
    ctx,
    db: database.db,
    /** Owner rights (migrations' role), for tests that act as a database console would. */
    asOwner: database.asOwner,
    /** The database itself, for tests that start a second app server on it. */
    database,
    clock,
    login,
    call,
    close: async () => {
      await app.close();
      await app.flushOperLogs();
      await ctx.kv.close();
      if (!options.database) await database.close();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;
