import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { users } from './system.js';

/**
 * Background jobs (export, import, recognition, reminders): the record the owner sees, whichever queue runs
 * the job (in process on the embedded database, BullMQ with Redis). Kept after the job ends: who ran what
 * and when stays readable; only the result file expires. The payload carries ids and options, never
 * clinical values; progress messages and errors are written for the owner and carry none either.
 */
export const jobs = pgTable(
  'jobs',
  {
    jobId: uuid('job_id').primaryKey(),
    kind: varchar('kind', { length: 64 }).notNull(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.userId),
    studyId: integer('study_id'),
    payload: jsonb('payload').notNull().default({}),
    /** queued | running | done | failed | cancelled */
    state: varchar('state', { length: 16 }).notNull(),
    progress: smallint('progress').notNull().default(0),
    message: varchar('message', { length: 200 }),
    error: varchar('error', { length: 500 }),
    result: jsonb('result'),
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    /** How many times a worker took the job (a restart runs it again). */
    attempts: integer('attempts').notNull().default(0),
    /** The process running it, and until when its claim holds without a heartbeat (the in-process queue). */
    lockedBy: varchar('locked_by', { length: 64 }),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    resultFileName: varchar('result_file_name', { length: 200 }),
    resultContentType: varchar('result_content_type', { length: 100 }),
    resultSize: bigint('result_size', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('jobs_owner').on(t.ownerId, t.createdAt),
    index('jobs_waiting')
      .on(t.createdAt)
      .where(sql`${t.state} in ('queued', 'running')`),
  ],
);

/**
 * One row per run of a recurring task in one period (a day, an hour): the first app server to insert it runs
 * the task, the others find the row and skip, so a task runs once however many servers tick.
 */
export const scheduledRuns = pgTable(
  'scheduled_runs',
  {
    task: varchar('task', { length: 64 }).notNull(),
    period: varchar('period', { length: 32 }).notNull(),
    claimedBy: varchar('claimed_by', { length: 64 }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** How it went, in words for an administrator (counts, never values). */
    outcome: varchar('outcome', { length: 500 }),
    failed: boolean('failed').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.task, t.period] })],
);
