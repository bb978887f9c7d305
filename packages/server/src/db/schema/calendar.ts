import { boolean, date, index, integer, pgTable, serial, text, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * A user's own calendar events within a study (日历). Private to the owner. Not part of the clinical record:
 * a deleted event is gone (the operation log keeps who deleted what id, when).
 */
export const calendarEvents = pgTable(
  'calendar_events',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.userId),
    title: varchar('title', { length: 60 }).notNull(),
    allDay: boolean('all_day').notNull().default(false),
    /** Inclusive start; for an all-day event the start of startDate in the study's zone. */
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    /** Exclusive end; for an all-day event the start of the day after endDate in the study's zone. */
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    startDate: date('start_date', { mode: 'string' }),
    endDate: date('end_date', { mode: 'string' }),
    subjectId: integer('subject_id'),
    note: text('note'),
    remindBefore: integer('remind_before'),
    /** When the reminder is due (start less remindBefore); null without a reminder. */
    remindAt: timestamp('remind_at', { withTimezone: true }),
    /** Set when the reminder was sent: the claim that makes it go once across app servers. */
    remindedAt: timestamp('reminded_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('calendar_events_study_key').on(t.studyId, t.id),
    index('calendar_events_owner_start').on(t.studyId, t.ownerId, t.startAt),
    index('calendar_events_remind_due').on(t.remindAt),
  ],
);
