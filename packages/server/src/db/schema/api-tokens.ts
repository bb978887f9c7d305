import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, timestamp, unique, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * REDCap-compatible API tokens: one user's key to one study (docs/redcap-api.md). Only the SHA-256 of
 * the token is kept: it is shown once when created and cannot be read back, like REDCap's own.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    /** SHA-256 (hex) of the token; the token itself is 128 random bits, so no slow hash is needed. */
    tokenHash: varchar('token_hash', { length: 64 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedBy: integer('revoked_by').references(() => users.userId),
  },
  (t) => [
    unique('api_tokens_study_key').on(t.studyId, t.id),
    unique('api_tokens_study_hash').on(t.studyId, t.tokenHash),
    // The call names no study: found by hash alone (not unique across studies here, so distributable by study).
    index('api_tokens_hash').on(t.tokenHash),
    index('api_tokens_user').on(t.userId, t.studyId),
    // One live token per user and study.
    uniqueIndex('api_tokens_one_live')
      .on(t.studyId, t.userId)
      .where(sql`revoked_at is null`),
  ],
);
