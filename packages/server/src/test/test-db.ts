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

/** A fresh, migrated and seeded database of its own for one test file. */
export async function openTestDatabase(pgliteTemplate: string): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = inject('postgresTemplate');
    const name = `${template}_${crypto.randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name} template ${template}`);
    const database = wrapPostgres(databaseUrlFor(serverUrl, name));
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
