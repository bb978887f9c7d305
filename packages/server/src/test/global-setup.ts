import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { APP_ROLE, wrapPglite, wrapPostgres } from '../db/client.js';
import { seed } from '../db/seed.js';
import { TEST_ADMIN_PASSWORD, appLoginFor, databaseUrlFor, newRunName, type AppLogin } from './test-db.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    /** On PostgreSQL: this run's template database, also the prefix of every test file's copy. */
    postgresTemplate: string;
    /** On PostgreSQL: this run's application login (a member of the application role only). */
    postgresAppLogin: AppLogin;
  }
}

/** Migrate and seed once; every test file then starts from a copy of that database. */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = newRunName();
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${template}`);
    const database = wrapPostgres(databaseUrlFor(serverUrl, template));
    await database.migrate();
    await seed(database.db, { adminPassword: TEST_ADMIN_PASSWORD, version: 'test' });
    await database.close();
    // The migration created the application role; the test apps log in as a member of it, as production should.
    const login = appLoginFor(template);
    await admin.query(`create role ${login.user} login password '${login.password}' in role ${APP_ROLE}`);
    project.provide('pgliteTemplate', '');
    project.provide('postgresTemplate', template);
    project.provide('postgresAppLogin', login);
    return async () => {
      // The copies of test files that crashed before closing go too; the prefix is this run's alone.
      const { rows } = await admin.query<{ datname: string }>(
        `select datname from pg_database where datname = $1 or datname like $2`,
        [template, `${template}\\_%`],
      );
      for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
      await admin.query(`drop role if exists ${login.user}`);
      await admin.end();
    };
  }

  project.provide('postgresTemplate', '');
  project.provide('postgresAppLogin', { user: '', password: '' });
  const client = await PGlite.create();
  const database = wrapPglite(client);
  await database.migrate();
  await seed(database.db, { adminPassword: TEST_ADMIN_PASSWORD, version: 'test' });
  const dump = await client.dumpDataDir('none');
  await database.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-test-'));
  const file = path.join(dir, 'template.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
