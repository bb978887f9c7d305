import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../test/test-db.js';
import { APP_ROLE, assertAppRoleConfined, isMigratedAndGranted, type Database } from './client.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase(inject('pgliteTemplate'));
  await database.migrate();
});
afterAll(() => database.close());

const current = () => database.asOwner((owner) => isMigratedAndGranted(owner, APP_ROLE));
const asOwner = (statement: string) => database.asOwner((owner) => owner.execute(sql.raw(statement)));

describe('a start on a database already migrated and granted', () => {
  it('skips the migrator and the grants only when the last migration is applied and every right is as granted', async () => {
    expect(await current()).toBe(true);

    // A right missing (a table added by hand, a revoke): the grants run again and restore it.
    await asOwner(`revoke delete on study_figures from ${APP_ROLE}`);
    expect(await current()).toBe(false);
    await database.migrate();
    expect(await current()).toBe(true);

    // A right too many on the audit trail: the grants run again and revoke it, and the start-up check passes.
    await asOwner(`grant update on audit_events to ${APP_ROLE}`);
    expect(await current()).toBe(false);
    await database.migrate();
    expect(await current()).toBe(true);
    await assertAppRoleConfined(database.db);

    // The journal ahead of the database (a new release's migrations): the migrator runs.
    await asOwner(
      `update drizzle.__drizzle_migrations set created_at = created_at - 1
       where id = (select max(id) from drizzle.__drizzle_migrations)`,
    );
    expect(await current()).toBe(false);
    await asOwner(
      `update drizzle.__drizzle_migrations set created_at = created_at + 1
       where id = (select max(id) from drizzle.__drizzle_migrations)`,
    );
    expect(await current()).toBe(true);
  });
});
