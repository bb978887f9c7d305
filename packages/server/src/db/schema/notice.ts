import { index, integer, pgTable, primaryKey, serial, timestamp, varchar } from 'drizzle-orm/pg-core';
import { notices, users } from './system.js';

/** A user has read a notice (通知公告): one row per user and notice, kept while the notice lives. */
export const noticeReads = pgTable(
  'notice_reads',
  {
    noticeId: integer('notice_id')
      .notNull()
      .references(() => notices.noticeId, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    readAt: timestamp('read_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.noticeId, t.userId] })],
);

/**
 * POST /api/v1/base/other/addsysdatachangeinfo (SHELL-32): which data scopes a client changed, when and by whom.
 * The other open clients are told through the realtime hubs and read those scopes again.
 */
export const dataChangeInfos = pgTable(
  'data_change_infos',
  {
    id: serial('id').primaryKey(),
    /** Null for platform-wide scopes (menus, users, notices). */
    studyId: integer('study_id'),
    /** The scopes, comma-separated as posted (normalised: trimmed, deduplicated). */
    scope: varchar('scope', { length: 500 }).notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('data_change_infos_time').on(t.createdAt)],
);
