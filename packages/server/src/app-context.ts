import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { TokenService } from './modules/auth/token.service.js';
import type { RealtimeHubs } from './modules/realtime/realtime.hub.js';
import type { EventOutbox } from './shared/domain-events.js';
import type { JobQueue } from './modules/jobs/job-queue.js';
import type { FieldCrypto } from './shared/field-crypto.js';
import type { FileStorage } from './shared/file-storage.js';
import type { KeyValueStore } from './shared/kv.js';

/** What every service may depend on; passed explicitly, never imported as a singleton. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly kv: KeyValueStore;
  readonly tokens: TokenService;
  /** Encrypts and hashes patient identifiers (ID number) at rest. */
  readonly fieldCrypto: FieldCrypto;
  /** Uploaded files by key: the local disk under DATA_DIR (an S3-compatible store later). */
  readonly files: FileStorage;
  readonly clock: () => Date;
  /** Background jobs (modules/jobs/job-queue.ts): handlers must be re-runnable. */
  readonly jobs: JobQueue;
  /** Pushes to the browsers: `toUser`, `toStudy` (hubs served by the app, modules/realtime). */
  readonly realtime: RealtimeHubs;
  /**
   * Domain events: services call `events.record(tx, …)` inside their transaction; subscribers are
   * registered when the app is built and run after commit (modules/events/outbox.ts).
   */
  readonly events: EventOutbox;
}
