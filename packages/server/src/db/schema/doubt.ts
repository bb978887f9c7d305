import {
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  varchar,
} from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { crfs, studies } from './study.js';

/** A data query (质疑) on one item of one saved record; never deleted. */
export const doubts = pgTable(
  'doubts',
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
    groupName: varchar('group_name', { length: 100 }),
    groupIndex: integer('group_index'),
    /** The item's value when the query was raised. */
    itemValue: jsonb('item_value'),
    doubtDescription: text('doubt_description').notNull(),
    /** forms §3: 0 open, 2 replied, 1 closed. */
    optionType: smallint('option_type').notNull().default(0),
    /** 0 system (an edit check), 1 user. */
    doubtType: smallint('doubt_type').notNull().default(1),
    /** For system queries: the check that raised it, so one check never raises two. */
    checkKey: varchar('check_key', { length: 300 }),
    createdBy: integer('created_by').notNull(),
    userName: varchar('user_name', { length: 80 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [
    index('doubts_record').on(t.crfDataRecordId, t.itemName),
    index('doubts_study').on(t.studyId, t.optionType),
    index('doubts_subject').on(t.subjectRecordId),
    // The study home's weekly series reads the queries opened or closed in the last 12 weeks only.
    index('doubts_study_opened').on(t.studyId, t.createdAt),
    index('doubts_study_closed').on(t.studyId, t.closedAt),
    unique('doubts_study_key').on(t.studyId, t.id),
  ],
);

export const doubtMessages = pgTable(
  'doubt_messages',
  {
    id: serial('id').primaryKey(),
    doubtId: integer('doubt_id')
      .notNull()
      .references(() => doubts.id),
    studyId: integer('study_id').notNull(),
    /** open, reply, reopen, close, auto_close */
    kind: varchar('kind', { length: 20 }).notNull(),
    content: text('content').notNull(),
    itemValue: jsonb('item_value'),
    userId: integer('user_id').notNull(),
    userName: varchar('user_name', { length: 80 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('doubt_messages_doubt').on(t.doubtId), unique('doubt_messages_study_key').on(t.studyId, t.id)],
);
