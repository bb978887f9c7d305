/**
 * Server figures on this machine: sign-in latency, authenticated request latency through the full
 * hook chain (token, session, permissions, validation, envelope), and the users list at 1,000 users.
 * Prints its figures; no thresholds here: compare runs over time.
 */
import { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../packages/server/src/app.js';
import { createJobQueue } from '../packages/server/src/modules/jobs/create-job-queue.js';
import { loadConfig } from '../packages/server/src/config.js';
import { wrapPglite } from '../packages/server/src/db/client.js';
import { users, userRoles } from '../packages/server/src/db/schema/index.js';
import { seed } from '../packages/server/src/db/seed.js';
import { createTokenService } from '../packages/server/src/modules/auth/token.service.js';
import { createRealtime } from '../packages/server/src/modules/realtime/realtime.hub.js';
import { createOutbox } from '../packages/server/src/modules/events/outbox.js';
import { createFieldCrypto } from '../packages/server/src/shared/field-crypto.js';
import { localFileStorage } from '../packages/server/src/shared/file-storage.js';
import { memoryStore } from '../packages/server/src/shared/kv.js';

const config = {
  ...loadConfig({ EDC_CAPTCHA: 'off', DATA_DIR: '/tmp/edc-bench' }),
  loginRateLimitPerMinute: 1_000_000,
};
const database = wrapPglite(await PGlite.create());
await database.migrate();
await seed(database.db, { adminPassword: 'Bench@123', version: 'bench' });
const clock = () => new Date();
const app = await buildApp({
  config,
  db: database.db,
  kv: memoryStore(),
  tokens: createTokenService(new TextEncoder().encode('bench-secret-bench-secret-bench-secret'), 1800, clock),
  fieldCrypto: createFieldCrypto(Buffer.alloc(32, 7)),
  files: localFileStorage(config.dataDir),
  jobs: createJobQueue({ db: database.db, files: localFileStorage(config.dataDir), redisUrl: undefined, clock }),
  clock,
  realtime: createRealtime(),
  events: createOutbox({ db: database.db }),
});
await app.ready();

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(2);
  return `p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  max ${sorted.at(-1)!.toFixed(2)} ms  (n=${samples.length})`;
}

async function time(n: number, fn: () => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return stats(samples);
}

const login = () =>
  app.inject({
    method: 'POST',
    url: '/api/ignore/sys/login',
    payload: { username: '13800000000', password: 'Bench@123' },
  });
console.log(`sign-in (argon2id verify + session)   ${await time(30, login)}`);

const token = (await login()).json().data.token as string;
const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
await database.db.update(users).set({ setPasswordMust: false });
console.log(`GET getInfo                           ${await time(300, () => get('/api/sys/login/getInfo'))}`);
console.log(`GET getRouters                        ${await time(300, () => get('/api/sys/login/getRouters'))}`);

const rows = Array.from({ length: 1000 }, (_, i) => ({
  userName: `139${String(i).padStart(8, '0')}`,
  passwordHash: 'x',
  name: `用户${i}`,
  deptId: 1,
}));
const inserted = await database.db.insert(users).values(rows).returning({ userId: users.userId });
await database.db.insert(userRoles).values(inserted.map((u) => ({ userId: u.userId, roleId: 1 })));
console.log(
  `GET users page 1 of 1,001             ${await time(200, () => get('/api/system/users?pageNum=1&pageSize=10'))}`,
);
console.log(`GET users filtered by name            ${await time(200, () => get('/api/system/users?name=用户99'))}`);
console.log(`rss ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`);

await app.close();
await app.flushOperLogs();
await database.close();
