import crypto from 'node:crypto';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { wrapPglite, wrapPostgres, type Database } from '../db/client.js';

export const TEST_ADMIN_PASSWORD = 'Admin@123';

/**
 * Every run names its databases after itself, so two runs against one PostgreSQL server (two CI jobs, a
 * developer beside CI) never drop or clone each other's: `edc_t_<pid>_<random>` is the run's template and
 * the prefix of each test file's copy.
 */
export function newRunName(): string {
  return `edc_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
}

export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The application's own PostgreSQL login of a test run: a member of the application role and nothing else. */
export interface AppLogin {
  user: string;
  password: string;
}

/** The run's application login, named after the run (roles are shared by every database of the server). */
export function appLoginFor(runName: string): AppLogin {
  return { user: `${runName}_web`, password: crypto.randomBytes(12).toString('hex') };
}

export function appUrlFor(serverUrl: string, database: string, login: AppLogin): string {
  const url = new URL(databaseUrlFor(serverUrl, database));
  url.username = login.user;
  url.password = login.password;
  return url.toString();
}

/**
 * A fresh, migrated and seeded database of its own for one test file. On PostgreSQL the application connects
 * with the run's own login and the owner's connections serve migrations only: the two-login set-up
 * docs/deployment.md gives production.
 */
export async function openTestDatabase(pgliteTemplate: string): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = inject('postgresTemplate');
    const name = `${template}_${crypto.randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name} template ${template}`);
    const database = wrapPostgres(
      databaseUrlFor(serverUrl, name),
      appUrlFor(serverUrl, name, inject('postgresAppLogin')),
    );
    return {
      ...database,
      close: async () => {
        await database.close();
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const client = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(pgliteTemplate)]) });
  return wrapPglite(client);
}
