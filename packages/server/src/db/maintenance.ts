import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { ScheduledTask } from '../shared/scheduled-task.js';
import { queryRows, type Db } from './client.js';

/**
 * Autovacuum's default thresholds (postgresql.conf): a table is analyzed once 50 rows plus a tenth of it have
 * changed since its statistics were taken, and vacuumed once 50 rows plus a fifth of it are dead.
 */
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;

/**
 * What autovacuum does on a PostgreSQL server, for the embedded database, which has no background workers:
 * without it the planner never gets statistics (a search over 1,000 patients was planned for one row and took
 * 0.7 s instead of 8 ms) and dead rows are never reclaimed. Each minute, the tables past autovacuum's thresholds
 * are analyzed, or vacuumed and analyzed, one statement each with the event loop given back between them. The
 * application role may do so through the MAINTAIN privilege (PostgreSQL 17+, granted at start-up). On a
 * PostgreSQL server the task does nothing: autovacuum is there.
 */
export function embeddedMaintenance(db: Db): ScheduledTask {
  let embedded: boolean | undefined;
  return {
    name: 'db.maintenance',
    every: 'tick',
    async run() {
      if (embedded === undefined) {
        const [row] = await queryRows<{ embedded: boolean }>(db, sql`select version() like '%PGlite%' as embedded`);
        embedded = row?.embedded === true;
      }
      if (!embedded) return '';
      return maintainTables(db);
    },
  };
}

/** Analyzes (and vacuums) the tables past the thresholds; says how many, for the scheduler's log. */
export async function maintainTables(db: Db): Promise<string> {
  const due = await queryRows<{ name: string; vacuum: boolean }>(
    db,
    sql`select quote_ident(schemaname) || '.' || quote_ident(relname) as name,
          n_dead_tup > ${VACUUM_BASE} + ${VACUUM_SCALE}::float8 * n_live_tup as vacuum
        from pg_stat_user_tables
        where schemaname = 'public'
          and (n_mod_since_analyze > ${ANALYZE_BASE} + ${ANALYZE_SCALE}::float8 * n_live_tup
            or n_dead_tup > ${VACUUM_BASE} + ${VACUUM_SCALE}::float8 * n_live_tup)
        order by n_mod_since_analyze + n_dead_tup desc`,
  );
  let vacuumed = 0;
  for (const table of due) {
    await yieldToRequests();
    await db.execute(sql.raw(table.vacuum ? `vacuum (analyze) ${table.name}` : `analyze ${table.name}`));
    if (table.vacuum) vacuumed++;
  }
  return due.length > 0 ? `${due.length} tables analyzed, ${vacuumed} of them vacuumed` : '';
}
