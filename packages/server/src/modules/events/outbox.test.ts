import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { wrapPglite } from '../../db/client.js';
import { hostSyncs, openDurablePglite } from '../../db/pglite-engine.js';
import { outboxDeliveries, outboxEvents } from '../../db/schema/index.js';
import type { DeliveredEvent, DomainEvent, EventLog } from '../../shared/domain-events.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

const opened: TestApp[] = [];
afterEach(async () => {
  // Apps built on another's database first, the one owning the database last.
  for (const t of opened.splice(0).reverse()) await t.close();
});

async function open(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(options);
  opened.push(t);
  return t;
}

/** Events about study 1 with made-up ids: the outbox stores ids only and checks none of them. */
const enrolled = (subjectId: number): DomainEvent => ({
  type: 'subject.enrolled',
  studyId: 1,
  subjectId,
  by: 1,
});
const saved = (recordId: number): DomainEvent => ({
  type: 'record.saved',
  studyId: 1,
  subjectId: 1,
  crfId: 1,
  recordId,
  by: 1,
});

/** Waits on a state, not on time: the condition is looked at again whenever the event loop is free. */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function collector() {
  const seen: DeliveredEvent[] = [];
  return { seen, handler: async (delivered: DeliveredEvent) => void seen.push(delivered) };
}

function capturingLog() {
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  const log: EventLog = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { lines, log };
}

describe('domain events through the outbox', () => {
  it('an event recorded in a transaction that rolls back is never delivered (nor stored); the committed one is', async () => {
    const t = await open();
    const { seen, handler } = collector();
    t.ctx.events.subscribe('test.rollback', ['subject.enrolled'], handler);

    await expect(
      t.db.transaction(async (tx) => {
        await t.ctx.events.record(tx, enrolled(101));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await t.db.transaction((tx) => t.ctx.events.record(tx, enrolled(102)));
    await t.ctx.events.drain();

    expect(seen.map((d) => d.event)).toEqual([enrolled(102)]);
    const stored = await t.db.select({ payload: outboxEvents.payload }).from(outboxEvents);
    expect(stored.map((r) => r.payload)).toEqual([enrolled(102)]);
  });

  it('an event recorded in a savepoint is delivered right after the outer transaction commits (no poll needed); one in a savepoint rolled back is not', async () => {
    const t = await open({ events: { pollMs: 3_600_000 } });
    const { seen, handler } = collector();
    t.ctx.events.subscribe('test.nested', ['subject.enrolled'], handler);
    await t.db.transaction(async (tx) => {
      await tx.transaction((inner) => t.ctx.events.record(inner, enrolled(201)));
      await expect(
        tx.transaction(async (inner) => {
          await t.ctx.events.record(inner, enrolled(202));
          throw new Error('this part failed');
        }),
      ).rejects.toThrow('this part failed');
    });
    // No drain: only the wake-up on commit can deliver it before the hourly poll.
    await until(async () => seen.length === 1, 'the delivery woken by the commit');
    expect(seen.map((d) => d.event)).toEqual([enrolled(201)]);
    await t.ctx.events.drain();
    expect(seen).toHaveLength(1);
  });

  it('recordMany records many events in their order with a few statements; each is delivered once, and settled waits for every subscriber', async () => {
    const t = await open();
    const first = collector();
    const second = collector();
    t.ctx.events.subscribe('test.many.one', ['record.saved'], first.handler);
    t.ctx.events.subscribe('test.many.two', ['record.saved', 'subject.enrolled'], second.handler);
    const events = Array.from({ length: 120 }, (_, i) => (i % 3 === 0 ? enrolled(i) : saved(i)));
    const recorded = await t.db.transaction((tx) => t.ctx.events.recordMany(tx, events));
    expect(recorded).toHaveLength(120);
    expect(recorded.map((r) => r.id)).toEqual([...recorded.map((r) => r.id)].sort((a, b) => a - b));
    const stored = await t.db
      .select()
      .from(outboxEvents)
      .where(
        inArray(
          outboxEvents.id,
          recorded.map((r) => r.id),
        ),
      );
    for (const [i, r] of recorded.entries()) {
      expect(stored.find((e) => e.id === r.id)!.payload).toEqual(events[i]);
    }
    expect(await t.ctx.events.settled(recorded.at(-1)!, 10_000)).toBe(true);
    const undelivered = await t.db
      .select()
      .from(outboxDeliveries)
      .where(
        and(
          inArray(outboxDeliveries.subscriber, ['test.many.one', 'test.many.two']),
          isNull(outboxDeliveries.deliveredAt),
        ),
      );
    expect(undelivered).toEqual([]);
    expect(first.seen.map((d) => d.event)).toEqual(events.filter((e) => e.type === 'record.saved'));
    expect(second.seen.map((d) => d.event)).toEqual(events);
  });

  // The embedded database's own case: on PostgreSQL (TEST_DATABASE_URL) the run has no embedded template.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    'on the embedded database on disk, delivering a committed event syncs nothing more: claims and marks are bookkeeping that the next synced commit carries',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-outbox-'));
      const client = await openDurablePglite(dir, new Blob([fs.readFileSync(inject('pgliteTemplate'))]));
      const database = wrapPglite(client);
      try {
        const t = await open({ database });
        const { seen, handler } = collector();
        t.ctx.events.subscribe('test.unsynced', ['record.saved'], handler);
        await t.ctx.events.stop();
        await t.db.transaction((tx) => t.ctx.events.record(tx, saved(8)));

        const restarted = await open({ database });
        restarted.ctx.events.subscribe('test.unsynced', ['record.saved'], handler);
        const before = hostSyncs.count;
        await restarted.ctx.events.drain();
        expect(seen.map((d) => d.event)).toEqual([saved(8)]);
        const [delivered] = await t.db
          .select()
          .from(outboxDeliveries)
          .where(eq(outboxDeliveries.subscriber, 'test.unsynced'));
        expect(delivered!.deliveredAt).not.toBeNull();
        expect(hostSyncs.count - before).toBe(0);

        // The next clinical commit is synced, and with it the bookkeeping before it: both are there after a reopen.
        await restarted.ctx.events.stop();
        await t.db.transaction((tx) => t.ctx.events.record(tx, saved(9)));
        expect(hostSyncs.count - before).toBeGreaterThanOrEqual(1);
      } finally {
        for (const t of opened.splice(0).reverse()) await t.close();
        await database.close();
      }
      const reopened = wrapPglite(await openDurablePglite(dir));
      try {
        const rows = await reopened.db
          .select({ eventId: outboxDeliveries.eventId, deliveredAt: outboxDeliveries.deliveredAt })
          .from(outboxDeliveries)
          .where(eq(outboxDeliveries.subscriber, 'test.unsynced'));
        expect(rows).toHaveLength(2);
        expect(rows.filter((r) => r.deliveredAt !== null)).toHaveLength(1);
      } finally {
        await reopened.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('an event committed while no dispatcher ran (the process died between commit and publish) is delivered by a fresh app on the same database', async () => {
    const t = await open();
    const before = collector();
    t.ctx.events.subscribe('test.restart', ['record.saved'], before.handler);
    // The dispatcher is gone: the change commits, nothing publishes it.
    await t.ctx.events.stop();
    await t.db.transaction((tx) => t.ctx.events.record(tx, saved(7)));
    const [pending] = await t.db.select().from(outboxDeliveries).where(eq(outboxDeliveries.subscriber, 'test.restart'));
    expect(pending).toMatchObject({ deliveredAt: null, attempts: 0 });
    expect(before.seen).toEqual([]);

    // A fresh app server on the same database: its own dispatcher, the same subscribers.
    const restarted = await open({ database: t.database });
    const after = collector();
    restarted.ctx.events.subscribe('test.restart', ['record.saved'], after.handler);
    await restarted.ctx.events.drain();
    expect(after.seen).toHaveLength(1);
    expect(after.seen[0]!.event).toEqual(saved(7));
    expect(after.seen[0]!.id).toBe(pending!.eventId);
    expect(after.seen[0]!.occurredAt).toBeInstanceOf(Date);
    const [delivered] = await t.db
      .select()
      .from(outboxDeliveries)
      .where(eq(outboxDeliveries.subscriber, 'test.restart'));
    expect(delivered!.deliveredAt).not.toBeNull();
    expect(delivered!.attempts).toBe(1);
    expect(before.seen).toEqual([]);
  });

  it('two dispatchers on one database (PostgreSQL with TEST_DATABASE_URL) deliver each event to each subscriber exactly once', async () => {
    // Small batches so that the two servers' claims interleave.
    const t = await open({ events: { batchSize: 3 } });
    const other = (await open({ database: t.database, events: { batchSize: 3 } })).ctx.events;
    const deliveries: Array<{ server: string; subscriber: string; id: number }> = [];
    for (const [server, events] of [
      ['one', t.ctx.events],
      ['two', other],
    ] as const) {
      for (const subscriber of ['test.first', 'test.second']) {
        events.subscribe(subscriber, ['subject.enrolled', 'record.saved'], async (d) => {
          deliveries.push({ server, subscriber, id: d.id });
          // Yield so that the other dispatcher runs while this one holds its claim.
          await new Promise((resolve) => setImmediate(resolve));
        });
      }
    }
    {
      const n = 60;
      // Both servers record, concurrently, each waking its own dispatcher and notifying the other.
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          t.db.transaction((tx) => (i % 2 ? other : t.ctx.events).record(tx, i % 3 ? enrolled(i) : saved(i))),
        ),
      );
      await Promise.all([t.ctx.events.drain(), other.drain()]);

      const ids = (await t.db.select({ id: outboxEvents.id }).from(outboxEvents)).map((r) => r.id).sort();
      expect(ids).toHaveLength(n);
      for (const subscriber of ['test.first', 'test.second']) {
        const got = deliveries
          .filter((d) => d.subscriber === subscriber)
          .map((d) => d.id)
          .sort();
        expect(got, subscriber).toEqual(ids);
      }
      const rows = await t.db
        .select()
        .from(outboxDeliveries)
        .where(inArray(outboxDeliveries.subscriber, ['test.first', 'test.second']));
      expect(rows).toHaveLength(2 * n);
      expect(rows.every((r) => r.attempts === 1 && r.deliveredAt !== null)).toBe(true);
    }
  });

  it('a failing handler is retried with backoff until it succeeds, and its failures are logged by ids without the error message', async () => {
    const t = await open({ events: { retryBaseMs: 20 } });
    const { lines, log } = capturingLog();
    await t.ctx.events.stop();
    await t.ctx.events.start(log);
    let calls = 0;
    t.ctx.events.subscribe('test.flaky', ['record.saved'], async () => {
      calls += 1;
      // A message quoting data, as a database error's detail can: it must not reach the log.
      if (calls < 3) throw new TypeError('收缩压 182 超出范围');
    });
    await t.db.transaction((tx) => t.ctx.events.record(tx, saved(9)));
    await t.ctx.events.drain();

    expect(calls).toBe(3);
    const [row] = await t.db.select().from(outboxDeliveries).where(eq(outboxDeliveries.subscriber, 'test.flaky'));
    expect(row).toMatchObject({ attempts: 3, lastError: null });
    expect(row!.deliveredAt).not.toBeNull();
    const failures = lines.filter((l) => l.level === 'warn');
    expect(failures).toHaveLength(2);
    expect(failures[0]!.obj).toMatchObject({
      subscriber: 'test.flaky',
      eventId: row!.eventId,
      type: 'record.saved',
      studyId: 1,
      attempts: 1,
      error: 'TypeError',
      retryInMs: 20,
    });
    expect(failures[1]!.obj).toMatchObject({ attempts: 2, retryInMs: 40 });
    expect(JSON.stringify(lines)).not.toContain('182');
  });

  it('delivered events are pruned after the retention period; an event still owed to a subscriber is kept', async () => {
    const t = await open({ events: { retentionMs: 0, pruneEveryMs: 0, retryBaseMs: 60_000 } });
    const { seen, handler } = collector();
    t.ctx.events.subscribe('test.fine', ['subject.enrolled'], handler);
    let failures = 0;
    t.ctx.events.subscribe('test.stuck', ['record.saved'], async () => {
      failures += 1;
      throw new Error('down');
    });
    await t.db.transaction((tx) => t.ctx.events.record(tx, enrolled(1)));
    await t.db.transaction((tx) => t.ctx.events.record(tx, saved(2)));
    const types = async () =>
      (await t.db.select({ type: outboxEvents.type }).from(outboxEvents)).map((r) => r.type).sort();

    await until(async () => seen.length === 1 && failures >= 1, 'both deliveries tried');
    // A later pass prunes what was delivered before it.
    await t.db.transaction((tx) => t.ctx.events.record(tx, enrolled(3)));
    await until(async () => seen.length === 2, 'the second enrolment delivered');
    await until(async () => (await types()).length <= 2, 'the first enrolment pruned');
    expect(await types()).toContain('record.saved');
    const stuck = await t.db
      .select()
      .from(outboxDeliveries)
      .where(and(eq(outboxDeliveries.subscriber, 'test.stuck')));
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toMatchObject({ deliveredAt: null, lastError: 'Error' });
  });
});
