import { timestamp } from 'drizzle-orm/pg-core';

/** Creation and last-change times, with time zone, on every table that is edited. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};
