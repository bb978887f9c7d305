import { PGlite, type QueryOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { pgTable, serial, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, wrapPglite, type Database } from './client.js';

const stamps = pgTable('stamps', {
  id: serial('id').primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'string' }).notNull(),
});

let client: PGlite;
let database: Database;
/** The `parsers` option of every query that reaches PGlite, in and out of transactions. */
const sent: Array<QueryOptions['parsers']> = [];

beforeAll(async () => {
  client = await PGlite.create();
  // Spies under the wrapper: they see what the wrapper hands PGlite.
  const query = client.query.bind(client);
  client.query = ((text: string, params?: unknown[], options?: QueryOptions) => {
    sent.push(options?.parsers);
    return query(text, params, options);
  }) as PGlite['query'];
  const transaction = client.transaction.bind(client);
  client.transaction = (work) =>
    transaction((tx) => {
      const inner = tx.query.bind(tx);
      tx.query = ((text: string, params?: unknown[], options?: QueryOptions) => {
        sent.push(options?.parsers);
        return inner(text, params, options);
      }) as typeof tx.query;
      return work(tx);
    });
  database = wrapPglite(client);
  await client.exec(`create table stamps (id serial primary key, at timestamptz not null, day date, gaps interval,
    amounts numeric[], times timestamptz[])`);
});

afterAll(() => client.close());

describe('PGlite query results read through drizzle', () => {
  it('reads timestamps, dates, intervals and their arrays as the text PostgreSQL sends, with no per-query parsers', async () => {
    await database.db.execute(sql`insert into stamps (at, day, gaps, amounts, times)
      values ('2026-11-28 08:00:00+00', '2026-11-28', '90 minutes', '{1.50,2}', '{"2026-11-28 08:00:00+00"}')`);
    sent.length = 0;
    const typed = await database.db.select().from(stamps);
    const [raw] = await queryRows<Record<string, unknown>>(
      database.db,
      sql`select at, day, gaps, amounts, times, 12.50::numeric as n, 3::int as i, true as b from stamps`,
    );
    const inTransaction = await database.db.transaction((tx) => tx.select().from(stamps));

    expect(typed[0]!.at).toBe('2026-11-28 08:00:00+00');
    expect(inTransaction[0]!.at).toBe('2026-11-28 08:00:00+00');
    expect(raw).toEqual({
      at: '2026-11-28 08:00:00+00',
      day: '2026-11-28',
      gaps: '01:30:00',
      amounts: '{1.50,2}',
      times: '{"2026-11-28 08:00:00+00"}',
      n: '12.50',
      i: 3,
      b: true,
    });
    // Neither outside nor inside the transaction did PGlite get parsers to merge into a copy of its own.
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.filter((parsers) => parsers !== undefined)).toEqual([]);
  });

  it('passes a query with other parsers on untouched', async () => {
    const double = (value: string) => Number(value) * 2;
    sent.length = 0;
    const result = await client.query<{ i: number }>('select 21::int4 as i', [], { parsers: { 23: double } });
    expect(result.rows[0]!.i).toBe(42);
    expect(sent[0]).toHaveProperty('23');
  });
});
