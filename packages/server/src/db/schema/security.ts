import { index, pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { sessions } from './system.js';

/**
 * Short-lived shared state (sign-in failure counters, lockouts, captcha answers) when no Redis
 * is configured: kept in the database so a restart does not clear a lockout an attacker earned.
 */
export const kvEntries = pgTable(
  'kv_entries',
  {
    key: text('key').primaryKey(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('kv_entries_expires').on(t.expiresAt)],
);

/**
 * Refresh tokens already rotated away. A session row is one sign-in's token family: presenting
 * a spent token means it was copied, so the whole family (the session) is revoked.
 */
export const spentRefreshTokens = pgTable(
  'spent_refresh_tokens',
  {
    refreshHash: varchar('refresh_hash', { length: 64 }).primaryKey(),
    sessionId: varchar('session_id', { length: 36 })
      .notNull()
      .references(() => sessions.sessionId, { onDelete: 'cascade' }),
    spentAt: timestamp('spent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('spent_refresh_tokens_session').on(t.sessionId)],
);
