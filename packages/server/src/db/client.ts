import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { SERVER_ROOT } from '../server-paths.js';
import { claimDataDir } from './data-dir-lock.js';
import { adaptQueries, openDurablePglite } from './pglite-engine.js';

/**
 * Drizzle is given no schema: its relational query API (`db.query.*`), which nothing here uses, would build a
 * query builder for every table on every transaction (its constructor was 1% of the app's CPU under save load).
 */
export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction handle is a Db too, so service functions take either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export const MIGRATIONS_DIR = path.join(SERVER_ROOT, 'drizzle');

/**
 * The role the application's queries run as. It owns nothing and may only read and append the
 * audit trail, so neither a bug nor an injected statement can rewrite history through it:
 * UPDATE/DELETE on audit_events, `SET session_replication_role` and `ALTER TABLE … DISABLE
 * TRIGGER` are refused for it (docs/decisions.md, "The application runs as a role that owns nothing").
 */
export const APP_ROLE = 'edc_app';
/** Role names are spliced into SQL (GRANT takes no parameters): only plain identifiers are accepted. */
export const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Tables the application role may only read and append to. */
export const APPEND_ONLY_TABLES = ['audit_events'] as const;
/** The rights the grants give the application role, and take back on the append-only tables. */
const TABLE_RIGHTS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;
const APPEND_ONLY_REVOKED = ['UPDATE', 'DELETE', 'TRUNCATE'] as const;
const SEQUENCE_RIGHTS = ['USAGE', 'SELECT'] as const;
const sqlArray = (values: readonly string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

export interface Database {
  /** The application's handle: queries run as APP_ROLE once the database is migrated. */
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Migrates as the owner, then creates APP_ROLE if needed and grants it the current tables. */
  migrate(): Promise<void>;
  /** Owner rights, for start-up maintenance and for tests that act as a database console would. */
  asOwner<T>(work: (owner: Db) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel on a connection of its own, calling `onNotify` with each notification's payload (and
   * with null after a lost connection is re-established, since notifications sent meanwhile are gone).
   * PostgreSQL only: PGlite is one process, where a local wake-up is enough. Answers the unlisten.
   */
  listen?(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Re-run after every migration, so tables and sequences added later are covered and the
 * append-only revocations always hold; idempotent. CREATE ROLE is cluster-wide: databases on one
 * server that name the same role share it (test runs do), so separate installations name their own
 * (DATABASE_APP_ROLE), or each one's owner could reach the other's tables through it.
 */
export async function grantAppRole(owner: Db, role = APP_ROLE): Promise<void> {
  if (!ROLE_NAME.test(role)) throw new Error(`Invalid database role name: ${role}`);
  // One transaction: between the GRANT on all tables and the REVOKE on the append-only ones another app
  // server's start-up check (assertAppRoleConfined) would otherwise see the role able to rewrite the audit trail.
  await owner.transaction(async (tx) => grantInTransaction(tx as unknown as Db, role));
}

/**
 * True when the database has applied the journal's last migration and the role holds every grant
 * grantInTransaction gives (and none of the rights it revokes): then a start skips the migrator and the
 * grants, a transaction of catalog writes that cost the embedded database a third of a second at every start.
 * Any doubt (a missing table, role or grant) answers false and everything runs as before.
 */
export async function isMigratedAndGranted(owner: Db, role = APP_ROLE): Promise<boolean> {
  if (!ROLE_NAME.test(role)) return false;
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  const last = Math.max(...journal.entries.map((e) => e.when));
  const appendOnly = sql.join(
    APPEND_ONLY_TABLES.map((t) => sql`${t}`),
    sql`, `,
  );
  try {
    const [row] = await queryRows<{ current: boolean }>(
      owner,
      sql`select (select max(created_at) from drizzle.__drizzle_migrations) >= ${last}
          and has_schema_privilege(${role}, 'public', 'USAGE')
          and not exists (
            select from pg_tables t, unnest(
              case when t.tablename in (${appendOnly}) then ${sqlArray(TABLE_RIGHTS.filter((r) => !(APPEND_ONLY_REVOKED as readonly string[]).includes(r)))}
                else ${sqlArray(TABLE_RIGHTS)} end
              || case when current_setting('server_version_num')::int >= 170000 then array['MAINTAIN']
                else array[]::text[] end) p
            where t.schemaname = 'public' and not has_table_privilege(${role}, format('public.%I', t.tablename), p))
          and not exists (
            select from pg_tables t, unnest(${sqlArray(APPEND_ONLY_REVOKED)}) p
            where t.schemaname = 'public' and t.tablename in (${appendOnly})
              and has_table_privilege(${role}, format('public.%I', t.tablename), p))
          and not exists (
            select from pg_sequences q, unnest(${sqlArray(SEQUENCE_RIGHTS)}) p
            where q.schemaname = 'public' and not has_sequence_privilege(${role}, format('public.%I', q.sequencename), p))
          as current`,
    );
    return row?.current === true;
  } catch {
    return false;
  }
}

async function grantInTransaction(owner: Db, role: string): Promise<void> {
  await owner.execute(
    sql.raw(`DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
    BEGIN
      CREATE ROLE ${role} NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT pg_has_role(current_user, '${role}', 'USAGE') THEN
    EXECUTE format('GRANT ${role} TO %I', current_user);
  END IF;
END $$`),
  );
  for (const statement of [
    `GRANT USAGE ON SCHEMA public TO ${role}`,
    `GRANT ${TABLE_RIGHTS.join(', ')} ON ALL TABLES IN SCHEMA public TO ${role}`,
    `GRANT ${SEQUENCE_RIGHTS.join(', ')} ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
    ...APPEND_ONLY_TABLES.map((table) => `REVOKE ${APPEND_ONLY_REVOKED.join(', ')} ON ${table} FROM ${role}`),
  ]) {
    await owner.execute(sql.raw(statement));
  }
  // ANALYZE and VACUUM (db/maintenance.ts), where the server has the privilege (PostgreSQL 17+: the embedded
  // database, which has no autovacuum). It changes no row and reads none the role could not read already.
  await owner.execute(
    sql.raw(`DO $$ BEGIN
  IF current_setting('server_version_num')::int >= 170000 THEN
    EXECUTE 'GRANT MAINTAIN ON ALL TABLES IN SCHEMA public TO ${role}';
  END IF;
END $$`),
  );
}

/**
 * Refuses to run the application with rights over the audit trail (a DATABASE_APP_URL naming a
 * superuser or the owner, or a role granted too much by hand).
 */
export async function assertAppRoleConfined(db: Db): Promise<void> {
  const [row] = await queryRows<{ role: string; superuser: boolean; rewrites: boolean }>(
    db,
    sql`select current_user as role,
      (select rolsuper from pg_roles where rolname = current_user) as superuser,
      has_table_privilege('audit_events', 'UPDATE') or has_table_privilege('audit_events', 'DELETE') as rewrites`,
  );
  if (!row || row.superuser || row.rewrites) {
    throw new Error(
      `The application's database role ${row?.role ?? '?'} can rewrite the audit trail; run it as the application role (docs/deployment.md).`,
    );
  }
}

/**
 * Refuses to run the application on a PostgreSQL login that could leave the application role: a superuser, a
 * login that may SET ROLE to (or inherits) the owner, a table owner or a role allowed to rewrite audit rows, or,
 * before PostgreSQL 16, one with CREATEROLE (which could grant itself any of those). Without DATABASE_APP_URL the
 * application's connections log in as the owner and only switch to the application role, so one injected
 * `SET ROLE` to the owner would give its rights back. `allowOwnerLogin` (EDC_ALLOW_OWNER_LOGIN=true)
 * accepts such a login with a warning. Not applied to the embedded database: one process, one superuser, and the
 * database is a directory the process owns (docs/decisions.md, "The application's own PostgreSQL login").
 */
export async function assertAppLoginConfined(
  database: Database,
  opts: { allowOwnerLogin: boolean; warn?: (message: string) => void },
): Promise<void> {
  if (database.kind !== 'postgres') return;
  const [owner] = await database.asOwner((db) => queryRows<{ role: string }>(db, sql`select current_user as role`));
  const [row] = await queryRows<{ login: string; superuser: boolean; createsRoles: boolean; reaches: string }>(
    database.db,
    sql`with login as (select oid, rolname, rolsuper, rolcreaterole from pg_roles where rolname = session_user),
      strong as (
        select r.oid, r.rolname from pg_roles r
        where r.rolsuper or r.rolname = ${owner?.role ?? ''}
          or exists (select from pg_class c join pg_namespace n on n.oid = c.relnamespace
                     where n.nspname = 'public' and c.relowner = r.oid)
          or has_table_privilege(r.oid, 'public.audit_events', 'UPDATE, DELETE, TRUNCATE'))
      select l.rolname as login, l.rolsuper as superuser,
        l.rolcreaterole and current_setting('server_version_num')::int < 160000 as "createsRoles",
        coalesce((select string_agg(s.rolname, ', ' order by s.rolname) from strong s
                  where pg_has_role(l.oid, s.oid, 'MEMBER')), '') as reaches
      from login l`,
  );
  if (!row) throw new Error('The application database login is not in pg_roles.');
  const reason = row.superuser
    ? 'is a superuser'
    : row.reaches
      ? `can SET ROLE to ${row.reaches} (the owner, a table owner, a superuser or a role that may rewrite audit rows)`
      : row.createsRoles
        ? 'has CREATEROLE, so it can grant itself the owner role'
        : undefined;
  if (!reason) return;
  const risk = `The application's database login "${row.login}" ${reason}: its connections can leave the application role and rewrite the audit trail.`;
  if (opts.allowOwnerLogin) {
    (opts.warn ?? console.warn)(`${risk} Running anyway because EDC_ALLOW_OWNER_LOGIN=true.`);
    return;
  }
  throw new Error(
    `${risk} Give the application a login of its own that is a member of the application role only (DATABASE_APP_URL, docs/deployment.md "Database roles"), or set EDC_ALLOW_OWNER_LOGIN=true to run so anyway.`,
  );
}

/** The start-up checks of the application's connections (main.ts): its role, then on PostgreSQL its login. */
export async function assertAppConnectionsConfined(
  database: Database,
  opts: { allowOwnerLogin: boolean; warn?: (message: string) => void },
): Promise<void> {
  await assertAppRoleConfined(database.db);
  await assertAppLoginConfined(database, opts);
}

const commitHooks = new WeakMap<object, Array<() => Promise<void>>>();

/**
 * Runs `work` at the end of the transaction `tx`, after everything else the transaction did and
 * before it commits (its failure rolls the transaction back). The audit chain needs this: its lock
 * must be the last one a transaction takes, or two transactions could each hold what the other
 * waits for. Answers false when `tx` is not a transaction opened by `db.transaction` (then the
 * caller must do the work itself).
 */
export function deferToCommit(tx: Db, work: () => Promise<void>): boolean {
  const hooks = commitHooks.get(tx);
  if (!hooks) return false;
  hooks.push(work);
  return true;
}

const afterCommitHooks = new WeakMap<object, Array<() => void>>();

/**
 * Runs `work` once the transaction `tx` has committed (never when it rolls back); `work` must not
 * throw. In a nested transaction (a savepoint) it waits for the outermost commit (a savepoint
 * rolled back leaves it queued: only idempotent work such as a wake-up belongs here). Outside a
 * transaction opened by `db.transaction` (`tx` is the pool: its statements have committed already)
 * it runs at once.
 */
export function afterCommit(tx: Db, work: () => void): void {
  const hooks = afterCommitHooks.get(tx);
  if (hooks) hooks.push(work);
  else work();
}

/** Nested transactions (savepoints) of `tx` queue their after-commit work on the outermost one. */
function shareAfterCommit(tx: Db, committed: Array<() => void>) {
  afterCommitHooks.set(tx, committed);
  const nested = tx.transaction.bind(tx);
  tx.transaction = ((work, config) =>
    nested((inner) => {
      shareAfterCommit(inner, committed);
      return work(inner);
    }, config)) as Db['transaction'];
}

function withCommitHooks(db: Db): Db {
  const transaction = db.transaction.bind(db);
  db.transaction = (async (work, config) => {
    const committed: Array<() => void> = [];
    const result = await transaction(async (tx) => {
      const hooks: Array<() => Promise<void>> = [];
      commitHooks.set(tx, hooks);
      shareAfterCommit(tx, committed);
      const result = await work(tx);
      for (let hook = hooks.shift(); hook; hook = hooks.shift()) await hook();
      return result;
    }, config);
    for (const hook of committed) hook();
    return result;
  }) as Db['transaction'];
  return db;
}

export function wrapPglite(client: PGlite): Database {
  adaptQueries(client);
  const db = withCommitHooks(drizzlePglite(client) as unknown as Db);
  const becomeApp = `SELECT set_config('role', '${APP_ROLE}', false) FROM pg_roles WHERE rolname = '${APP_ROLE}'`;
  // PGlite is single-user: the one connection drops to the application role (when a migrated
  // database already has it). PGlite runs queries in call order, so this precedes any other.
  const switched = client
    .query(becomeApp)
    .catch((err: unknown) => console.warn(`PGlite: cannot switch to ${APP_ROLE}: ${String(err)}`));
  const asOwner = async <T>(work: (owner: Db) => Promise<T>) => {
    await switched;
    await client.exec('RESET ROLE');
    try {
      return await work(db);
    } finally {
      await client.query(becomeApp);
    }
  };
  return {
    db,
    kind: 'pglite',
    migrate: () =>
      asOwner(async (owner) => {
        if (await isMigratedAndGranted(owner)) return;
        await migratePglite(owner as never, { migrationsFolder: MIGRATIONS_DIR });
        await grantAppRole(owner);
      }),
    asOwner,
    close: () => client.close(),
  };
}

function pool(config: pg.PoolConfig) {
  const created = new pg.Pool(config);
  // An idle connection dropped by the server (restart, failover) must not crash the process:
  // the pool replaces it, and a query in flight reports its own error.
  created.on('error', (err) => console.warn(`PostgreSQL idle connection lost: ${err.message}`));
  return created;
}

/**
 * `url` is the owner's (migrations). The application connects with `appUrl`, a login role that is
 * a member of APP_ROLE, or else as the owner switched to APP_ROLE at connection start: the switch
 * is part of the start-up packet, so a connection that cannot make it fails instead of running
 * with the owner's rights.
 */
/** The advisory lock that serialises migrations between app servers starting together. */
const MIGRATION_LOCK = 42_000;

export function wrapPostgres(url: string, appUrl?: string, appRole = APP_ROLE, poolSize = 10): Database {
  if (!ROLE_NAME.test(appRole)) throw new Error(`Invalid database role name: ${appRole}`);
  const appPool = pool(
    appUrl
      ? { connectionString: appUrl, max: poolSize }
      : { connectionString: url, max: poolSize, options: `-c role=${appRole}` },
  );
  const db = withCommitHooks(drizzlePg(appPool) as unknown as Db);
  let ownerPool: pg.Pool | undefined;
  let ownerDb: Db | undefined;
  const asOwner = async <T>(work: (owner: Db) => Promise<T>) => {
    ownerPool ??= pool({ connectionString: url, max: 2 });
    ownerDb ??= withCommitHooks(drizzlePg(ownerPool) as unknown as Db);
    return work(ownerDb);
  };
  const listenConfig: pg.ClientConfig = appUrl
    ? { connectionString: appUrl }
    : { connectionString: url, options: `-c role=${appRole}` };
  return {
    db,
    kind: 'postgres',
    migrate: () =>
      asOwner(async () => {
        // Several app servers may start at once: the first migrates and grants while the others wait on this
        // lock, then find nothing left to do (concurrent GRANTs on one table fail with "tuple concurrently
        // updated"). A session lock on a connection of its own, since the migrator opens its own transaction.
        const client = await ownerPool!.connect();
        try {
          await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
          const owner = withCommitHooks(drizzlePg(client) as unknown as Db);
          if (await isMigratedAndGranted(owner, appRole)) return;
          await migratePg(owner as never, { migrationsFolder: MIGRATIONS_DIR });
          await grantAppRole(owner, appRole);
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
          client.release();
        }
      }),
    asOwner,
    listen: (channel, onNotify) => listenPostgres(listenConfig, channel, onNotify),
    close: async () => {
      await appPool.end();
      await ownerPool?.end();
    },
  };
}

const RELISTEN_MS = 5_000;

/**
 * A dedicated connection (a pooled one would hand the LISTEN to whoever borrows it next) that
 * comes back after the server drops it; until then the caller's own polling covers the gap.
 */
async function listenPostgres(
  config: pg.ClientConfig,
  channel: string,
  onNotify: (payload: string | null) => void,
): Promise<() => Promise<void>> {
  if (!ROLE_NAME.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client(config);
    next.on('notification', (message) => onNotify(message.payload ?? null));
    next.on('error', (err) => {
      console.warn(`PostgreSQL LISTEN connection lost: ${err.message}`);
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      if (!stopped) retry = setTimeout(() => void connect().catch(() => undefined), RELISTEN_MS);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (err) {
      void next.end().catch(() => undefined);
      if (!stopped) retry = setTimeout(() => void connect().catch(() => undefined), RELISTEN_MS);
      throw err;
    }
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    onNotify(null);
  };
  await connect().catch((err: unknown) =>
    console.warn(`PostgreSQL LISTEN ${channel} failed, retrying: ${(err as Error).message}`),
  );
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end();
    client = undefined;
  };
}

/** PostgreSQL when a URL is given, otherwise embedded PGlite kept under the data directory. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  databaseAppUrl?: string;
  databaseAppRole?: string;
  databasePoolSize?: number;
  dataDir: string;
}): Promise<Database> {
  if (opts.databaseUrl) {
    return wrapPostgres(opts.databaseUrl, opts.databaseAppUrl, opts.databaseAppRole, opts.databasePoolSize);
  }
  const dir = path.join(opts.dataDir, 'pgdata');
  fs.mkdirSync(dir, { recursive: true });
  const release = await claimDataDir(opts.dataDir);
  try {
    const database = wrapPglite(await openDurablePglite(dir));
    return {
      ...database,
      close: async () => {
        await database.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/** Rows of a raw SQL query; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
