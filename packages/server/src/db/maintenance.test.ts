import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test/test-db.js';
import { inject } from 'vitest';
import { queryRows, type Database } from './client.js';
import { embeddedMaintenance } from './maintenance.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase(inject('pgliteTemplate'));
});
afterAll(() => database.close());

const statsOf = async (table: string) =>
  (
    await queryRows<{ analyzed: boolean; changed: number; dead: number }>(
      database.db,
      sql`select (last_analyze is not null or last_autoanalyze is not null) as analyzed,
            n_mod_since_analyze::int as changed, n_dead_tup::int as dead
          from pg_stat_user_tables where relname = ${table}`,
    )
  )[0]!;

/** The statistics views are flushed about once a second: wait for the writes to show there. */
async function untilCounted(table: string, atLeast: number) {
  for (;;) {
    await database.db.execute(sql`select 1`);
    if ((await statsOf(table)).changed >= atLeast) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the embedded database kept as autovacuum keeps a server', () => {
  it('the application role analyzes a table past the threshold (on the embedded database), and the planner then knows its size; nothing happens on PostgreSQL, where autovacuum does it', async () => {
    await database.db.execute(
      sql`insert into kv_entries (key, value, expires_at)
          select 'maintenance-' || g, 'x', now() + interval '1 hour' from generate_series(1, 2000) g`,
    );
    const task = embeddedMaintenance(database.db);
    expect(task.every).toBe('tick');
    if (database.kind !== 'pglite') {
      expect(await task.run(new Date())).toBe('');
      return;
    }
    await untilCounted('kv_entries', 2000);
    expect(await task.run(new Date())).toMatch(/tables analyzed/);
    const after = await statsOf('kv_entries');
    expect(after.analyzed).toBe(true);
    expect(after.changed).toBe(0);
    const [plan] = await queryRows<{ 'QUERY PLAN': string }>(
      database.db,
      sql`explain select * from kv_entries where key like 'maintenance-%'`,
    );
    expect(plan!['QUERY PLAN']).toMatch(/rows=(1\d{3}|2\d{3})\b/);
    // Nothing past the thresholds: a tick does nothing.
    await database.db.execute(sql`select 1`);
    expect(await task.run(new Date())).toBe('');
  });
});
