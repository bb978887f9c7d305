import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, timestamp, unique, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * Locks (docs/multi-centre.md). A row is one lock's life: set with a reason, lifted with a reason. At most one live
 * lock per target; target 0 for the whole study. A study lock records the study's audit chain head at that moment.
 */
export const studyLocks = pgTable(
  'study_locks',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    /** study | site | subject | record (LOCK_SCOPES). */
    scope: varchar('scope', { length: 10 }).notNull(),
    /** 0 for the study; a department id, a subject record id or a data record id. */
    targetId: integer('target_id').notNull().default(0),
    reason: varchar('reason', { length: 500 }).notNull(),
    lockedBy: integer('locked_by')
      .notNull()
      .references(() => users.userId),
    lockedByName: varchar('locked_by_name', { length: 50 }).notNull(),
    lockedAt: timestamp('locked_at', { withTimezone: true }).notNull(),
    chainHead: varchar('chain_head', { length: 64 }),
    unlockedBy: integer('unlocked_by').references(() => users.userId),
    unlockedAt: timestamp('unlocked_at', { withTimezone: true }),
    unlockReason: varchar('unlock_reason', { length: 500 }),
  },
  (t) => [
    uniqueIndex('study_locks_live')
      .on(t.studyId, t.scope, t.targetId)
      .where(sql`${t.unlockedAt} is null`),
    index('study_locks_study').on(t.studyId),
    unique('study_locks_study_key').on(t.studyId, t.id),
  ],
);
