import { index, integer, pgTable, serial, text, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { crfs, studies } from './study.js';

/**
 * A field comment (批注, issue 37) on one item of a saved form record: a note that is not a query. Append-only by
 * the API (no route changes or removes one); only the go-live purge of test patients deletes rows.
 */
export const itemComments = pgTable(
  'item_comments',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    crfDataRecordId: integer('crf_data_record_id')
      .notNull()
      .references(() => crfDataRecords.id),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    itemName: varchar('item_name', { length: 100 }).notNull(),
    content: text('content').notNull(),
    userId: integer('user_id').notNull(),
    userName: varchar('user_name', { length: 80 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('item_comments_record').on(t.crfDataRecordId, t.itemName),
    index('item_comments_subject').on(t.subjectRecordId),
    unique('item_comments_study_key').on(t.studyId, t.id),
  ],
);
