import { randomUUID } from 'node:crypto';
import { and, count, eq, inArray, isNull, lte, max, sql } from 'drizzle-orm';
import { afterCommit, queryRows, type Database, type Db } from '../../db/client.js';
import { outboxDeliveries, outboxEvents } from '../../db/schema/index.js';
import type {
  DomainEvent,
  DomainEventHandler,
  DomainEventType,
  EventLog,
  EventOutbox,
  EventRecording,
  RecordedEvent,
} from '../../shared/domain-events.js';

/** The NOTIFY channel that wakes the dispatchers of every app server on one PostgreSQL database. */
export const OUTBOX_CHANNEL = 'edc_outbox';
const SUBSCRIBER_NAME = /^[a-z][a-z0-9_.-]{0,49}$/;
/** Events per insert in recordMany (each delivery row is 3 parameters; PostgreSQL takes at most 65,535). */
const RECORD_CHUNK = 2_000;
/** Handled deliveries are marked delivered in one statement per this many, or per this long. */
const MARK_EVERY = 50;
const MARK_WITHIN_MS = 200;
/**
 * A FROM item that turns synchronous_commit off for the statement's own transaction. The dispatcher's claims and
 * marks are bookkeeping: lost in a crash, a delivery is only handed out again (delivery is at least once, handlers
 * are idempotent), and the next synced commit (a subscriber's write, the next save) carries them to the disk.
 * Waiting for a disk sync on each would cost every save two more syncs, on the embedded database in the one
 * connection the saves also need.
 */
const UNSYNCED_COMMIT = sql`(select set_config('synchronous_commit', 'off', true)) as unsynced_commit`;

export interface OutboxOptions {
  db: Db;
  /** PostgreSQL's LISTEN (Database.listen); without it (PGlite) only local commits and the poll wake the dispatcher. */
  listen?: Database['listen'];
  /** The safety net: how often the dispatcher looks for due work nobody woke it for. */
  pollMs?: number;
  /** How long a claimed delivery is held before another server may take it over (its claimer died). */
  leaseMs?: number;
  /** First retry after a failure; doubled on each further failure up to retryMaxMs. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Delivered events are kept this long after they occurred, then pruned. */
  retentionMs?: number;
  pruneEveryMs?: number;
  batchSize?: number;
  /** drain() gives up (rejects with what is pending) after this long. */
  drainTimeoutMs?: number;
}

const DEFAULTS = {
  pollMs: 10_000,
  leaseMs: 120_000,
  retryBaseMs: 1_000,
  retryMaxMs: 10 * 60_000,
  retentionMs: 7 * 24 * 3600_000,
  pruneEveryMs: 3600_000,
  batchSize: 100,
  drainTimeoutMs: 30_000,
};

interface Subscriber {
  readonly name: string;
  readonly types: ReadonlySet<DomainEventType>;
  readonly handler: DomainEventHandler;
}

interface Claimed {
  subscriber: string;
  study_id: number | string;
  event_id: number | string;
  attempts: number | string;
  payload: DomainEvent;
  occurred_at: Date | string;
}

const silent: EventLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** What a failure is, without its message: messages of database errors can quote the data. */
function errorKind(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return (typeof code === 'string' ? `${err.name} ${code}` : err.name).slice(0, 200);
  }
  return typeof err;
}

/**
 * Domain events through a transactional outbox. `record` inserts the event and one delivery row per
 * local subscriber of its type with the caller's transaction, NOTIFYs the other app servers (on
 * commit, by PostgreSQL's rules) and wakes this server's dispatcher once the transaction commits.
 * The dispatcher claims due deliveries (FOR UPDATE SKIP LOCKED, then a lease), runs the handler,
 * marks the row delivered or schedules a retry with backoff. Subscribers are registered when the
 * app is built, before it records anything; every app server runs the same code and so the same
 * subscribers (docs/decisions.md, "Domain events through a transactional outbox").
 */
export function createOutbox(options: OutboxOptions): EventOutbox {
  const { db, listen } = options;
  const opts = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const subscribers = new Map<string, Subscriber>();
  let log: EventLog = silent;
  let started = false;
  let stopping = false;
  let running: Promise<void> | null = null;
  let again = false;
  let poll: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let lastPrune = 0;
  // A failed delivery waits for its backoff: only then does a pass look up when to wake next.
  let retriesOwed = true;
  /** This dispatcher's own NOTIFYs: its commit has already woken it, so the echo is ignored. */
  const instance = randomUUID();

  function subscribersOf(type: DomainEventType) {
    return [...subscribers.values()].filter((s) => s.types.has(type)).map((s) => s.name);
  }

  function recordIn(event: DomainEvent): EventRecording {
    const names = subscribersOf(event.type);
    const inserted = sql`recorded_event as (insert into ${outboxEvents} (study_id, type, payload)
      values (${event.studyId}, ${event.type}, ${JSON.stringify(event)}::jsonb) returning id)`;
    const deliveries =
      names.length > 0
        ? sql`, recorded_deliveries as (insert into ${outboxDeliveries} (study_id, event_id, subscriber)
            select ${event.studyId}, recorded_event.id, subscriber
            from recorded_event, unnest(${sql.param(names)}::varchar[]) as subscriber)`
        : sql``;
    return {
      ctes: sql`${inserted}${deliveries}`,
      // PostgreSQL delivers a NOTIFY only when (and if) the transaction commits.
      eventId: listen
        ? sql`(select id from recorded_event cross join lateral (select pg_notify(${OUTBOX_CHANNEL}, ${instance})) as notified)`
        : sql`(select id from recorded_event)`,
      recorded(tx, id) {
        afterCommit(tx, wakeAfterReply);
        return { studyId: event.studyId, id: Number(id) };
      },
    };
  }

  /** The event, its deliveries and the NOTIFY in one statement. */
  async function record(tx: Db, event: DomainEvent) {
    const recording = recordIn(event);
    const [row] = await queryRows<{ id: number | string }>(
      tx,
      sql`with ${recording.ctes} select ${recording.eventId} as id`,
    );
    return recording.recorded(tx, row!.id);
  }

  /** `record` for many events at once: one insert of the events, one of their deliveries, one NOTIFY. */
  async function recordMany(tx: Db, events: readonly DomainEvent[]): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for (let at = 0; at < events.length; at += RECORD_CHUNK) {
      const part = events.slice(at, at + RECORD_CHUNK);
      const rows = await tx
        .insert(outboxEvents)
        .values(part.map((event) => ({ studyId: event.studyId, type: event.type, payload: event })))
        .returning({ id: outboxEvents.id });
      // The serial hands out ids in the order of the VALUES list: the nth smallest id is the nth event.
      const ids = rows.map((r) => r.id).sort((a, b) => a - b);
      const recorded = part.map((event, i) => ({ studyId: event.studyId, id: ids[i]!, type: event.type }));
      const deliveries = recorded.flatMap((r) =>
        subscribersOf(r.type).map((subscriber) => ({ studyId: r.studyId, eventId: r.id, subscriber })),
      );
      if (deliveries.length > 0) await tx.insert(outboxDeliveries).values(deliveries);
      out.push(...recorded.map(({ studyId, id }) => ({ studyId, id })));
    }
    if (out.length > 0) {
      if (listen) await tx.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, ${instance})`);
      afterCommit(tx, wakeAfterReply);
    }
    return out;
  }

  function subscribe(name: string, types: readonly DomainEventType[], handler: DomainEventHandler) {
    if (!SUBSCRIBER_NAME.test(name)) throw new Error(`Invalid subscriber name: ${name}`);
    // One handler per name: an app built again on the same context replaces its own subscribers.
    subscribers.set(name, { name, types: new Set(types), handler });
  }

  /** Due deliveries of every subscriber, in one statement: a save's event owes several of them. */
  async function claim(names: readonly string[]): Promise<Claimed[]> {
    const rows = await queryRows<Claimed>(
      db,
      sql`update outbox_deliveries d
        set attempts = d.attempts + 1,
          next_attempt_at = now() + ${opts.leaseMs} * interval '1 millisecond'
        from (
          select study_id, event_id, subscriber from outbox_deliveries
          where subscriber = any(${sql.param(names)}::varchar[]) and delivered_at is null and next_attempt_at <= now()
          order by event_id
          limit ${opts.batchSize}
          for update skip locked
        ) due, outbox_events e, ${UNSYNCED_COMMIT}
        where d.subscriber = due.subscriber and d.study_id = due.study_id and d.event_id = due.event_id
          and e.study_id = d.study_id and e.id = d.event_id
        returning d.subscriber, d.study_id, d.event_id, d.attempts, e.payload, e.occurred_at`,
    );
    return rows.sort((a, b) => Number(a.event_id) - Number(b.event_id));
  }

  /**
   * Marks deliveries done, one statement per study (a bulk change, such as an import, records thousands):
   * `event_id = any(…)` keeps to the primary key's index, whatever the planner knows of the table; the pairs
   * then pick each subscriber's own deliveries.
   */
  async function markDelivered(rows: ReadonlyArray<{ studyId: number; eventId: number; subscriber: string }>) {
    const byStudy = new Map<number, Array<{ eventId: number; subscriber: string }>>();
    for (const r of rows) {
      const done = byStudy.get(r.studyId);
      if (done) done.push(r);
      else byStudy.set(r.studyId, [r]);
    }
    for (const [studyId, done] of byStudy) {
      const eventIds = [...new Set(done.map((d) => d.eventId))];
      await db.execute(sql`update outbox_deliveries d set delivered_at = now(), last_error = null
        from unnest(${sql.param(done.map((d) => d.eventId))}::bigint[], ${sql.param(done.map((d) => d.subscriber))}::varchar[])
          as handled(event_id, subscriber), ${UNSYNCED_COMMIT}
        where d.study_id = ${studyId} and d.event_id = any(${sql.param(eventIds)}::bigint[])
          and d.event_id = handled.event_id and d.subscriber = handled.subscriber`);
    }
  }

  /** Answers the delivery's key when the handler succeeded (to be marked delivered), null when it failed. */
  async function deliver(subscriber: Subscriber, row: Claimed) {
    const eventId = Number(row.event_id);
    const studyId = Number(row.study_id);
    const attempts = Number(row.attempts);
    const key = and(
      eq(outboxDeliveries.studyId, studyId),
      eq(outboxDeliveries.eventId, eventId),
      eq(outboxDeliveries.subscriber, subscriber.name),
    );
    try {
      await subscriber.handler({ id: eventId, occurredAt: new Date(row.occurred_at), event: row.payload });
    } catch (err) {
      const delayMs = Math.min(opts.retryBaseMs * 2 ** Math.min(attempts - 1, 30), opts.retryMaxMs);
      retriesOwed = true;
      const failure = { subscriber: subscriber.name, eventId, type: row.payload.type, studyId, attempts };
      log.warn({ ...failure, error: errorKind(err), retryInMs: delayMs }, 'domain event handler failed; will retry');
      await db
        .update(outboxDeliveries)
        .set({
          nextAttemptAt: sql`now() + ${delayMs} * interval '1 millisecond'`,
          lastError: errorKind(err),
        })
        .where(key);
      return null;
    }
    return { studyId, eventId, subscriber: subscriber.name };
  }

  /**
   * Claims the due deliveries of all subscribers together and hands each subscriber its own, in event order;
   * subscribers run side by side, so a slow one does not hold the others. Handled deliveries are marked
   * together, a few at a time and at once when the claim is done (a lone save's event is marked as soon as its
   * subscribers have handled it, so `delivered` answers without delay).
   */
  async function deliverDue() {
    const names = [...subscribers.keys()];
    while (!stopping) {
      const claimed = await claim(names);
      const bySubscriber = new Map<string, Claimed[]>();
      for (const row of claimed) {
        const rows = bySubscriber.get(row.subscriber);
        if (rows) rows.push(row);
        else bySubscriber.set(row.subscriber, [row]);
      }
      let done: Array<{ studyId: number; eventId: number; subscriber: string }> = [];
      let since = Date.now();
      let marking = Promise.resolve();
      const flush = () => {
        const handled = done;
        done = [];
        since = Date.now();
        marking = marking.then(() => markDelivered(handled));
        return marking;
      };
      await Promise.all(
        [...bySubscriber].map(async ([name, rows]) => {
          const subscriber = subscribers.get(name);
          if (!subscriber) return; // unknown here: its lease ends and a server that has it takes it up
          for (const row of rows) {
            // A claim is leased: a row not handled before stopping is taken up again when the lease ends (and
            // one handled but not yet marked is handled again: delivery is at least once, handlers are
            // idempotent).
            if (stopping) return;
            // Back to the event loop between deliveries: on the embedded database every statement resolves as
            // a microtask, so a claim of 100 deliveries would otherwise run as one task and hold every request.
            await new Promise<void>((resolve) => setImmediate(resolve));
            const key = await deliver(subscriber, row);
            if (key) done.push(key);
            if (done.length >= MARK_EVERY || Date.now() - since >= MARK_WITHIN_MS) await flush();
          }
        }),
      );
      await flush();
      if (stopping || claimed.length < opts.batchSize) return;
    }
  }

  /**
   * Wakes the dispatcher again when the earliest retry (or another server's lease) is due. Only while retries
   * are owed: a pass with nothing failed costs no look-up, and the poll finds another server's lapsed lease.
   */
  async function scheduleRetry() {
    const names = [...subscribers.keys()];
    if (names.length === 0 || stopping || !retriesOwed) return;
    retriesOwed = false;
    const [next] = await queryRows<{ ms: number | string | null }>(
      db,
      sql`select extract(epoch from min(next_attempt_at) - now()) * 1000 as ms
        from outbox_deliveries where delivered_at is null and subscriber in ${names}`,
    );
    clearTimeout(retryTimer);
    if (next?.ms === null || next?.ms === undefined) return;
    const ms = Math.max(0, Number(next.ms));
    if (ms < opts.pollMs) {
      retryTimer = setTimeout(wake, ms + 5).unref();
      // That pass looks again: another retry may fall due after this one.
      retriesOwed = true;
    }
  }

  async function prune() {
    for (;;) {
      const deleted = await queryRows<{ id: number }>(
        db,
        sql`delete from outbox_events where (study_id, id) in (
          select e.study_id, e.id from outbox_events e
          where e.occurred_at < now() - ${opts.retentionMs} * interval '1 millisecond'
            and not exists (
              select 1 from outbox_deliveries d
              where d.study_id = e.study_id and d.event_id = e.id and d.delivered_at is null)
          limit 1000)
        returning id`,
      );
      if (deleted.length > 0) log.info({ pruned: deleted.length }, 'delivered domain events pruned');
      if (deleted.length < 1000) return;
    }
  }

  async function pass() {
    if (subscribers.size > 0) await deliverDue();
    if (Date.now() - lastPrune >= opts.pruneEveryMs) {
      lastPrune = Date.now();
      await prune();
    }
    await scheduleRetry();
  }

  /**
   * After a commit, the dispatcher starts once the committing request has had its turn: the request's reply goes
   * out first, and on the embedded database the claim does not run ahead of it in the one connection.
   */
  function wakeAfterReply() {
    setImmediate(wake);
  }

  function wake() {
    if (!started || stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (err) {
          log.error({ error: errorKind(err) }, 'domain event dispatch failed; the poll tries again');
        }
      } while (again && !stopping);
    })().finally(() => {
      running = null;
    });
  }

  async function start(logger: EventLog) {
    if (started) return;
    log = logger;
    started = true;
    stopping = false;
    retriesOwed = true;
    if (listen) unlisten = await listen(OUTBOX_CHANNEL, (from) => from !== instance && wake());
    poll = setInterval(wake, opts.pollMs).unref();
    wake();
  }

  async function stop() {
    if (!started) return;
    stopping = true;
    clearInterval(poll);
    clearTimeout(retryTimer);
    await unlisten?.();
    unlisten = undefined;
    await running;
    started = false;
  }

  async function pending(names: string[], upTo: number) {
    const [row] = await db
      .select({ n: count() })
      .from(outboxDeliveries)
      .where(
        and(
          inArray(outboxDeliveries.subscriber, names),
          isNull(outboxDeliveries.deliveredAt),
          lte(outboxDeliveries.eventId, upTo),
        ),
      );
    return Number(row?.n ?? 0);
  }

  async function drain() {
    const names = [...subscribers.keys()];
    if (names.length === 0) return;
    if (!started || stopping) throw new Error('The domain event dispatcher is not running');
    const [last] = await db
      .select({ upTo: max(outboxDeliveries.eventId) })
      .from(outboxDeliveries)
      .where(inArray(outboxDeliveries.subscriber, names));
    const upTo = Number(last?.upTo ?? 0);
    const deadline = Date.now() + opts.drainTimeoutMs;
    for (;;) {
      const left = await pending(names, upTo);
      if (left === 0) return;
      if (Date.now() > deadline) throw new Error(`Domain events: ${left} deliveries still pending`);
      wake();
      await running;
      // Still pending: a retry's backoff, or a delivery another server has claimed. Look again shortly.
      if ((await pending(names, upTo)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function settled(recorded: RecordedEvent, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await db
        .select({ n: count() })
        .from(outboxDeliveries)
        .where(
          and(
            eq(outboxDeliveries.studyId, recorded.studyId),
            eq(outboxDeliveries.eventId, recorded.id),
            isNull(outboxDeliveries.deliveredAt),
          ),
        );
      if (Number(row?.n ?? 0) === 0) return true;
      if (Date.now() >= deadline) return false;
      // This server's pass, or soon, whichever is first: under continuous saves a pass never ends, and the deadline
      // must still be kept (another server may deliver, or a retry wait).
      const soon = new Promise((resolve) => setTimeout(resolve, 10));
      await (running ? Promise.race([running, soon]) : soon);
    }
  }

  async function delivered(recorded: RecordedEvent, subscriber: string, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await db
        .select({ deliveredAt: outboxDeliveries.deliveredAt })
        .from(outboxDeliveries)
        .where(
          and(
            eq(outboxDeliveries.studyId, recorded.studyId),
            eq(outboxDeliveries.eventId, recorded.id),
            eq(outboxDeliveries.subscriber, subscriber),
          ),
        );
      if (!row || row.deliveredAt) return true;
      if (Date.now() >= deadline) return false;
      // This server's pass is under way after the commit woke it; another server's shows in the row.
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 10))]);
    }
  }

  return { record, recordIn, recordMany, subscribe, drain, delivered, settled, start, stop };
}
