import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../config.js';
import { appUrlFor, databaseUrlFor, openTestDatabase } from '../test/test-db.js';
import {
  APP_ROLE,
  assertAppConnectionsConfined,
  assertAppRoleConfined,
  openDatabase,
  queryRows,
  type Database,
} from './client.js';

/**
 * The start-up check of the application's PostgreSQL login (main.ts: open, migrate, check), run on a database
 * owned by a superuser (the test server's own login) and on one owned by an ordinary login, as in production.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const POSTGRES_ONLY =
  'PostgreSQL only (set TEST_DATABASE_URL): the embedded database has one user, a superuser, and no login to check';
const DATA_DIR = '/tmp/edc-test-unused';

const run = `edc_t_login_${crypto.randomBytes(4).toString('hex')}`;
const password = crypto.randomBytes(12).toString('hex');
const role = (suffix: string) => ({ user: `${run}_${suffix}`, password });
const owner = role('own');
/** The application's own login of the two-login set-up: a member of the application role, nothing else. */
const web = role('web');
/** Inherits nothing (so it holds no right on any table) but may SET ROLE to the owner. */
const sneak = role('sneak');
const superuserDb = `${run}_su`;
const ownedDb = `${run}_own`;

let admin: pg.Client;
const opened: Database[] = [];

/** As main.ts starts: the configuration from the environment, the database opened and migrated, then the check. */
async function start(env: Record<string, string>, warn = vi.fn()) {
  const config = loadConfig({ DATA_DIR, ...env });
  const database = await openDatabase(config);
  opened.push(database);
  await database.migrate();
  await assertAppConnectionsConfined(database, { allowOwnerLogin: config.allowOwnerLogin, warn });
  return { database, warn };
}

const ownedUrl = (login?: { user: string; password: string }) =>
  login ? appUrlFor(serverUrl!, ownedDb, login) : databaseUrlFor(serverUrl!, ownedDb);

beforeAll(async () => {
  if (!serverUrl) return;
  admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${superuserDb} template ${inject('postgresTemplate')}`);
  // An ordinary owner, as docs/deployment.md sets one up: it may use the application role (created once by hand).
  await admin.query(`create role ${owner.user} login password '${password}'`);
  await admin.query(`grant ${APP_ROLE} to ${owner.user}`);
  await admin.query(`create database ${ownedDb} owner ${owner.user}`);
  await admin.query(`create role ${web.user} login password '${password}' in role ${APP_ROLE}`);
  await admin.query(`create role ${sneak.user} login noinherit password '${password}' in role ${APP_ROLE}`);
  await admin.query(`grant ${owner.user} to ${sneak.user}`);
});

afterAll(async () => {
  if (!serverUrl) return;
  for (const database of opened) await database.close().catch(() => undefined);
  for (const name of [superuserDb, ownedDb]) await admin.query(`drop database if exists ${name} with (force)`);
  for (const login of [sneak, web, owner]) await admin.query(`drop role if exists ${login.user}`);
  await admin.end();
});

/**
 * What a statement injected into the application's connection could do: SET ROLE to another role (RESET ROLE
 * only returns to the role the connection started as). Answers the role the connection then runs as.
 */
async function switchTo(database: Database, target: string): Promise<string> {
  return database.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local role ${target}`));
    const [me] = await queryRows<{ role: string }>(tx as never, sql`select current_user as role`);
    return me!.role;
  });
}

describe("the application's PostgreSQL login at start-up", () => {
  it('a superuser login for the application (DATABASE_URL alone) is refused with a clear error', async ({ skip }) => {
    skip(!serverUrl, POSTGRES_ONLY);
    const login = new URL(serverUrl!).username;
    await expect(start({ DATABASE_URL: databaseUrlFor(serverUrl!, superuserDb) })).rejects.toThrow(
      `The application's database login "${login}" is a superuser: its connections can leave the application role and rewrite the audit trail. Give the application a login of its own that is a member of the application role only (DATABASE_APP_URL, docs/deployment.md "Database roles"), or set EDC_ALLOW_OWNER_LOGIN=true to run so anyway.`,
    );
    // The role check alone passed it: its queries run as the application role until one resets it.
    const database = opened.at(-1)!;
    await expect(assertAppRoleConfined(database.db)).resolves.toBeUndefined();
    expect(await switchTo(database, login)).toBe(login);
  });

  it('an ordinary owner login switched to the application role (the one-login set-up) is refused: it can SET ROLE back to the owner', async ({
    skip,
  }) => {
    skip(!serverUrl, POSTGRES_ONLY);
    await expect(start({ DATABASE_URL: ownedUrl(owner) })).rejects.toThrow(
      new RegExp(`login "${owner.user}" can SET ROLE to ${owner.user} \\(the owner.*EDC_ALLOW_OWNER_LOGIN=true`),
    );
    const database = opened.at(-1)!;
    // The danger itself: back as the owner, the audit trail's guard trigger can be switched off.
    expect(await switchTo(database, owner.user)).toBe(owner.user);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local role ${owner.user}`));
      await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
      await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
    });
  });

  it('a login of the application that may SET ROLE to the owner without inheriting its rights is refused too', async ({
    skip,
  }) => {
    skip(!serverUrl, POSTGRES_ONLY);
    await expect(start({ DATABASE_URL: ownedUrl(owner), DATABASE_APP_URL: ownedUrl(sneak) })).rejects.toThrow(
      new RegExp(`login "${sneak.user}" can SET ROLE to ${owner.user} `),
    );
    // It holds no right on the audit trail itself, so the role check alone let it through.
    await expect(assertAppRoleConfined(opened.at(-1)!.db)).resolves.toBeUndefined();
  });

  it('EDC_ALLOW_OWNER_LOGIN=true lets the server start on such a login, with a warning', async ({ skip }) => {
    skip(!serverUrl, POSTGRES_ONLY);
    const superuser = await start({
      DATABASE_URL: databaseUrlFor(serverUrl!, superuserDb),
      EDC_ALLOW_OWNER_LOGIN: 'true',
    });
    expect(superuser.warn).toHaveBeenCalledWith(expect.stringMatching(/is a superuser.*EDC_ALLOW_OWNER_LOGIN=true/));
    const ownerLogin = await start({ DATABASE_URL: ownedUrl(owner), EDC_ALLOW_OWNER_LOGIN: 'true' });
    expect(ownerLogin.warn).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`can SET ROLE to ${owner.user}`)));
    expect(loadConfig({ DATA_DIR }).allowOwnerLogin).toBe(false);
    expect(() => loadConfig({ DATA_DIR, EDC_ALLOW_OWNER_LOGIN: 'yes' })).toThrow(/EDC_ALLOW_OWNER_LOGIN/);
  });

  it('the two-login set-up starts without a warning, and its connections cannot become the owner', async ({ skip }) => {
    skip(!serverUrl, POSTGRES_ONLY);
    const { database, warn } = await start({ DATABASE_URL: ownedUrl(owner), DATABASE_APP_URL: ownedUrl(web) });
    expect(warn).not.toHaveBeenCalled();
    await expect(switchTo(database, owner.user)).rejects.toThrow();
    // The test apps' own set-up on a superuser-owned database: the run's application login.
    const tests = await start({
      DATABASE_URL: databaseUrlFor(serverUrl!, superuserDb),
      DATABASE_APP_URL: appUrlFor(serverUrl!, superuserDb, inject('postgresAppLogin')),
    });
    expect(tests.warn).not.toHaveBeenCalled();
  });

  it('on the embedded database the login check does not apply: one process, one superuser, a directory it owns', async ({
    skip,
  }) => {
    skip(Boolean(serverUrl), 'the embedded database case: run without TEST_DATABASE_URL');
    const database = await openTestDatabase(inject('pgliteTemplate'));
    try {
      const [me] = await database.asOwner((db) =>
        queryRows<{ superuser: boolean }>(
          db,
          sql`select rolsuper as superuser from pg_roles where rolname = session_user`,
        ),
      );
      expect(me!.superuser).toBe(true);
      const warn = vi.fn();
      await expect(assertAppConnectionsConfined(database, { allowOwnerLogin: false, warn })).resolves.toBeUndefined();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      await database.close();
    }
  });
});
