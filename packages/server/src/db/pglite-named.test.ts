import { PGlite } from '@electric-sql/pglite';
import { and, eq, sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapPglite, type Database } from './client.js';
import { NAMED_SHAPES_PER_KIND, queryRowsNamed, reusableSelect } from './reusable-query.js';

const notes = pgTable('notes', {
  id: serial('id').primaryKey(),
  body: text('body').notNull(),
  score: integer('score'),
  extra: jsonb('extra'),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
});

let client: PGlite;
let database: Database;
/** The protocol messages PGlite's PostgreSQL receives, by kind: P parse, B bind, S sync, Q simple query. */
const received: string[] = [];
/** The statement name of each Parse ('' for an unnamed statement). */
const parsedNames: string[] = [];

beforeAll(async () => {
  client = await PGlite.create();
  const stream = client.execProtocolStream.bind(client);
  client.execProtocolStream = ((message: Uint8Array, options?: Parameters<PGlite['execProtocolStream']>[1]) => {
    received.push(String.fromCharCode(message[0]!));
    if (message[0] === 0x50) parsedNames.push(Buffer.from(message.subarray(5, message.indexOf(0, 5))).toString());
    return stream(message, options);
  }) as PGlite['execProtocolStream'];
  database = wrapPglite(client);
  await client.exec(`create table notes (id serial primary key, body text not null, score int, extra jsonb,
    at timestamptz not null default now())`);
});

afterAll(() => client.close());

const shape = (db: Database['db']) =>
  db
    .select({ id: notes.id, body: notes.body, score: notes.score, extra: notes.extra, at: notes.at })
    .from(notes)
    .orderBy(notes.id);
const byScore = reusableSelect('test_notes_by_score', (db) =>
  shape(db).where(eq(notes.score, sql.placeholder('score'))),
);
const parses = () => received.filter((kind) => kind === 'P').length;

describe('a select built once, on the embedded database', () => {
  it('is parsed and planned once, then only bound and executed, and answers what the builder answers', async () => {
    const { db } = database;
    await db.insert(notes).values([
      { body: '一', score: 1, extra: { a: [1, '二'] } },
      { body: '二', score: 2, extra: null },
      { body: '三', score: 2 },
    ]);
    // The same select with a text of its own, so that it runs as an ordinary query.
    const direct = (score: number) => shape(db).where(and(eq(notes.score, score), sql`true`));
    const first = await byScore(db, { score: 2 });
    expect(first).toEqual(await direct(2));
    expect(first.map((n) => n.body)).toEqual(['二', '三']);
    expect(first[0]!.at).toBeInstanceOf(Date);

    const before = parses();
    received.length = 0;
    for (const score of [1, 2, 3]) {
      expect(await byScore(db, { score })).toEqual(await direct(score));
    }
    // Only the three direct selects were parsed; the named one was bound three times.
    expect(parses()).toBe(3);
    expect(received.filter((kind) => kind === 'B')).toHaveLength(6);
    expect(before).toBeGreaterThan(0);
    expect((await byScore(db, { score: 1 }))[0]!.extra).toEqual({ a: [1, '二'] });
  });

  it('runs inside the caller’s transaction, and outside one waits for a running transaction instead of joining it', async () => {
    const { db } = database;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: (seen: string[]) => void;
    const seenInside = new Promise<string[]>((resolve) => (inserted = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.insert(notes).values({ body: '未提交', score: 7 });
      inserted((await byScore(tx, { score: 7 })).map((n) => n.body));
      await held;
      throw new Error('roll back');
    });
    expect(await seenInside).toEqual(['未提交']);
    // Started while the transaction holds the one connection: had it joined the transaction, it would see the row
    // that the rollback then removes.
    const outside = byScore(db, { score: 7 });
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await outside).toEqual([]);
  });

  it('reports a failed execution as PostgreSQL’s error and leaves the connection usable', async () => {
    const { db } = database;
    const dividing = reusableSelect('test_notes_dividing', (d) =>
      d
        .select({ ratio: sql<number>`${notes.score} / ${sql.placeholder('by')}::int` })
        .from(notes)
        .where(eq(notes.id, 1)),
    );
    expect(await dividing(db, { by: 1 })).toEqual([{ ratio: 1 }]);
    await expect(dividing(db, { by: 0 })).rejects.toMatchObject({ cause: { code: '22012' } });
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(notes).values({ body: '回滚', score: 9 });
        await dividing(tx, { by: 0 });
      }),
    ).rejects.toMatchObject({ cause: { code: '22012' } });
    expect(await byScore(db, { score: 9 })).toEqual([]);
    expect(await dividing(db, { by: 1 })).toEqual([{ ratio: 1 }]);
  });

  it('keeps answering after a table it reads changes (PostgreSQL replans it)', async () => {
    const { db } = database;
    expect((await byScore(db, { score: 1 })).map((n) => n.body)).toEqual(['一']);
    await client.exec('create index notes_score on notes (score); alter table notes add column later text');
    expect((await byScore(db, { score: 1 })).map((n) => n.body)).toEqual(['一']);
  });

  it('names each distinct text of a raw statement’s kind once, and runs texts past the cap unnamed', async () => {
    const { db } = database;
    const shape = (i: number) => sql`select ${i}::int as n, ${sql.raw(`'shape ${i}'`)} as label`;
    parsedNames.length = 0;
    for (let i = 1; i <= NAMED_SHAPES_PER_KIND + 2; i++) {
      expect(await queryRowsNamed(db, 'test_shapes', shape(i))).toEqual([{ n: i, label: `shape ${i}` }]);
    }
    expect(parsedNames).toEqual([
      ...Array.from({ length: NAMED_SHAPES_PER_KIND }, (_, i) => `test_shapes_${i + 1}`),
      '',
      '',
    ]);
    parsedNames.length = 0;
    expect(await queryRowsNamed(db, 'test_shapes', shape(1))).toEqual([{ n: 1, label: 'shape 1' }]);
    expect(await queryRowsNamed(db, 'test_shapes', shape(NAMED_SHAPES_PER_KIND + 1))).toHaveLength(1);
    // The first text is bound to its name again; the one past the cap is parsed again, unnamed.
    expect(parsedNames).toEqual(['']);
  });
});
