import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import type { AppContext } from './app-context.js';
import { loadConfigOrExit } from './config.js';
import { assertAppConnectionsConfined, openDatabase } from './db/client.js';
import { seedDemoStudy } from './db/demo-study.js';
import { embeddedMaintenance } from './db/maintenance.js';
import { seed } from './db/seed.js';
import { sealUnchainedRows } from './modules/audit/audit-chain.js';
import { createTokenService } from './modules/auth/token.service.js';
import { calendarRemindersTask } from './modules/calendar/calendar.service.js';
import { unconfirmedObjectsCleanup } from './modules/files/object-upload.service.js';
import { followStatesTask } from './modules/follow/follow-states.task.js';
import { studyFiguresFold } from './modules/home/study-figures.js';
import { messagesScheduleTask } from './modules/messaging/messaging-schedule.js';
import { messagesSendTask } from './modules/messaging/messaging-send.job.js';
import { messageProviders } from './modules/messaging/messaging-providers.js';
import { createJobQueue } from './modules/jobs/create-job-queue.js';
import { startScheduler } from './modules/jobs/jobs.install.js';
import { createRealtime } from './modules/realtime/realtime.hub.js';
import { createOutbox } from './modules/events/outbox.js';
import { databaseStore, redisStore } from './shared/kv.js';
import { createFieldCrypto, loadDataKey } from './shared/field-crypto.js';
import { s3FileStorage } from './shared/s3-storage.js';
import { localFileStorage } from './shared/file-storage.js';
import { loadSigningSecret } from './shared/secret.js';
import { serverClock } from './shared/test-clock.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

async function main() {
  const config = loadConfigOrExit();

  const database = await openDatabase(config);
  await database.migrate();
  const sealed = await database.asOwner(sealUnchainedRows);
  if (sealed > 0) console.log(`Audit trail: ${sealed} rows written before the hash chain existed are now chained.`);
  await assertAppConnectionsConfined(database, { allowOwnerLogin: config.allowOwnerLogin });
  const seeded = await seed(database.db, { adminPassword: config.adminPassword, version });
  if (config.demoStudy) await seedDemoStudy(database.db);

  const clock = serverClock();
  // External network mode with an object store configured (docs/object-storage.md), else the local disk.
  const files = config.s3 ? await s3FileStorage(config.s3) : localFileStorage(config.dataDir);
  const ctx: AppContext = {
    config,
    db: database.db,
    kv: config.redisUrl ? redisStore(config.redisUrl) : databaseStore(database.db),
    tokens: createTokenService(loadSigningSecret(config.dataDir, config.jwtSecret), config.accessTokenSeconds, clock),
    fieldCrypto: createFieldCrypto(loadDataKey(config.dataDir, config.dataKey)),
    files,
    clock,
    jobs: createJobQueue({ db: database.db, files, redisUrl: config.redisUrl, clock }),
    realtime: createRealtime({ redisUrl: config.redisUrl }),
    events: createOutbox({ db: database.db, listen: database.listen }),
  };
  // The message providers are read from the environment once, here: a provider missing a setting stops the start.
  messageProviders();
  const app = await buildApp(ctx, { logger: { level: config.logLevel }, serveWeb: true });

  // Each module's recurring tasks, handed to the job module's scheduler after its own housekeeping.
  const scheduler = startScheduler(app, ctx, [
    followStatesTask(ctx),
    calendarRemindersTask(ctx),
    unconfirmedObjectsCleanup(ctx),
    embeddedMaintenance(ctx.db),
    studyFiguresFold(ctx.db),
    messagesScheduleTask(ctx),
    messagesSendTask(ctx),
  ]);

  if (seeded.adminCreated) {
    const password = seeded.generatedAdminPassword
      ? `${seeded.generatedAdminPassword} (generated; shown only now)`
      : 'from EDC_ADMIN_PASSWORD';
    // Printed once on purpose, to the console and not the log stream, so it lands in no log file.
    console.log(
      `\n  Administrator created: user 13800000000, password ${password}.\n  The password must be changed at first sign-in.\n`,
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await scheduler.close();
    await app.close();
    await app.flushOperLogs();
    await ctx.kv.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`database: ${database.kind}; web and API on http://localhost:${config.port}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
