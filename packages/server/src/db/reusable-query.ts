import type { Query, SQL } from 'drizzle-orm';
import {
  PgDialect,
  type PgPreparedQuery,
  type PreparedQueryConfig,
  type SelectedFieldsOrdered,
} from 'drizzle-orm/pg-core';
import type { Db } from './client.js';
import { namedStatementOf, runAsNamedStatement } from './pglite-named.js';

/** What a built select keeps: its text with numbered parameters (placeholders among them), its fields, joins. */
interface Built {
  query: Query;
  fields: SelectedFieldsOrdered;
  joinsNotNullableMap: Record<string, boolean> | undefined;
}

/** The driver's prepared query as both drivers (node-postgres and PGlite) shape it. */
interface DriverPrepared {
  queryString: string;
  params: unknown[];
  fields: SelectedFieldsOrdered;
  joinsNotNullableMap?: Record<string, boolean>;
}

type Prepared = PgPreparedQuery<PreparedQueryConfig> & { joinsNotNullableMap?: Record<string, boolean> };

/**
 * A select on the hot path, built once and run on whichever handle a call gives it: the pool or a transaction.
 *
 * Why: drizzle assembles a statement's text from the schema objects on every call. For a form save's joined read
 * and the session read of every request that is a quarter of the process's drizzle time (bench/crf-save.ts,
 * docs/performance.md), and drizzle's own `.prepare()` binds a statement to the handle it was built on, so it
 * cannot run inside the transaction of a later call. Here the text, fields and row mapping are taken from the
 * first build and handed to each call's session (`session.prepareQuery`, drizzle's public session interface), so
 * rows come back mapped exactly as the builder would map them. The name makes the statement a prepared statement
 * of each PostgreSQL connection, parsed once per connection, and of the embedded database's one connection
 * (`pglite-named.ts`); a name must always stand for the same text, which holds because the text is built once.
 *
 * `build` must use `sql.placeholder(key)` for every value that changes between calls.
 */
export function reusableSelect<Row, Values extends Record<string, unknown>>(
  name: string,
  build: (db: Db) => { prepare(name: string): PgPreparedQuery<PreparedQueryConfig & { execute: Row[] }> },
): (db: Db, values: Values) => Promise<Row[]> {
  let built: Built | undefined;
  return async (db, values) => {
    if (!built) {
      const driver = build(db).prepare(name) as unknown as DriverPrepared;
      built = {
        query: { sql: driver.queryString, params: driver.params },
        fields: driver.fields,
        joinsNotNullableMap: driver.joinsNotNullableMap,
      };
      runAsNamedStatement(built.query.sql, name);
    }
    const prepared = db._.session.prepareQuery(built.query, built.fields, name, true) as Prepared;
    prepared.joinsNotNullableMap = built.joinsNotNullableMap;
    return (await prepared.execute(values)) as Row[];
  };
}

const dialect = new PgDialect();
/** How many texts each kind has named (the names themselves are kept by `runAsNamedStatement`). */
const shapesNamed = new Map<string, number>();
/** Past this many distinct texts a kind's further texts run unnamed (see `queryRowsNamed`). */
export const NAMED_SHAPES_PER_KIND = 16;

/**
 * The rows of a raw statement on the hot path whose text takes one of a few shapes (a form save's write: submitted
 * or not, values changed or not, a request id or not; the audit trail's append, one shape for any number of rows).
 * Each distinct text gets a name of its own (`<kind>_<n>`), so that both databases parse and plan it once per
 * connection instead of at every save. A kind whose texts keep varying past NAMED_SHAPES_PER_KIND (a text that
 * embeds a value) runs the rest unnamed, so that no connection collects a prepared statement per call.
 */
export async function queryRowsNamed<T>(db: Db, kind: string, statement: SQL): Promise<T[]> {
  const query = dialect.sqlToQuery(statement);
  let name = namedStatementOf(query.sql);
  if (name === undefined) {
    const named = shapesNamed.get(kind) ?? 0;
    if (named < NAMED_SHAPES_PER_KIND) {
      name = `${kind}_${named + 1}`;
      shapesNamed.set(kind, named + 1);
      runAsNamedStatement(query.sql, name);
    }
  }
  const result = (await db._.session.prepareQuery(query, undefined, name, false).execute()) as { rows: T[] };
  return result.rows;
}
