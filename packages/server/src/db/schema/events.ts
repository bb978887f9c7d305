import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  timestamp,
  varchar,
} from 'drizzle-orm/pg-core';

/**
 * The transactional outbox (modules/events/outbox.ts): a domain event is inserted by the
 * transaction of the change it describes, so it exists exactly when the change committed. Payloads
 * carry ids and who acted, never clinical values or identifiers. Keyed by study like every
 * study-scoped table, so the outbox can be distributed with the data it describes.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    studyId: integer('study_id').notNull(),
    type: varchar('type', { length: 50 }).notNull(),
    payload: jsonb('payload').notNull(),
    /** Database time of the recording transaction (one clock for every app server). */
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.id] }), index('outbox_events_occurred').on(t.occurredAt)],
);

/**
 * One row per event and named subscriber, written with the event: a subscriber's delivery state.
 * A dispatcher claims due rows with FOR UPDATE SKIP LOCKED and leases them by moving
 * next_attempt_at forward, so two app servers never run one delivery at the same time; the lease
 * runs out if the claiming server dies, and another server delivers it (at least once).
 */
export const outboxDeliveries = pgTable(
  'outbox_deliveries',
  {
    studyId: integer('study_id').notNull(),
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    subscriber: varchar('subscriber', { length: 50 }).notNull(),
    /** Handler runs started (claims), successful or not. */
    attempts: integer('attempts').notNull().default(0),
    /** Due from then: the retry's backoff, or the lease of a claim in progress. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    /** The last failure's error class and code only: messages can quote data. */
    lastError: varchar('last_error', { length: 200 }),
  },
  (t) => [
    primaryKey({ columns: [t.studyId, t.eventId, t.subscriber] }),
    foreignKey({ columns: [t.studyId, t.eventId], foreignColumns: [outboxEvents.studyId, outboxEvents.id] }).onDelete(
      'cascade',
    ),
    index('outbox_deliveries_due')
      .on(t.subscriber, t.nextAttemptAt)
      .where(sql`${t.deliveredAt} is null`),
  ],
);
