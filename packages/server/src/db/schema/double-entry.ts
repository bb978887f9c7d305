import { sql } from 'drizzle-orm';
import {
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { users } from './system.js';
import { crfs, studies } from './study.js';

/**
 * One of the two blind entries (双份录入, issue 37) of a form set to double entry: entry 1 and entry 2 are typed by
 * two different users from the same paper CRF and kept here, apart from the record, until a third user reconciles
 * them; the reconciled values are then written to the form record through the one write path.
 * `crfDataRecordId` is the record the pair is for (null while the form has no record yet).
 */
export const doubleEntries = pgTable(
  'double_entries',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    crfVersion: integer('crf_version').notNull(),
    crfDataRecordId: integer('crf_data_record_id').references(() => crfDataRecords.id),
    /** 1 or 2. */
    entryNo: smallint('entry_no').notNull(),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    missing: jsonb('missing').$type<Record<string, string>>().notNull().default({}),
    /** draft (being typed) | done (the entering user finished it). */
    state: varchar('state', { length: 12 }).notNull().default('draft'),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    userName: varchar('user_name', { length: 80 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when the pair was reconciled into the record: the row then stays as the history of the entry. */
    reconciledAt: timestamp('reconciled_at', { withTimezone: true }),
    reconciledBy: integer('reconciled_by').references(() => users.userId),
    /** Per differing item: { entry1, entry2, chosen, decidedBy } as the reconciler decided it. */
    decisions: jsonb('decisions').$type<Record<string, unknown>>(),
  },
  (t) => [
    // One open entry 1 and one open entry 2 per form instance of a patient.
    uniqueIndex('double_entries_open')
      .on(t.subjectRecordId, t.crfId, sql`coalesce(${t.crfDataRecordId}, 0)`, t.entryNo)
      .where(sql`${t.reconciledAt} is null`),
    index('double_entries_study').on(t.studyId, t.crfId),
    unique('double_entries_study_key').on(t.studyId, t.id),
  ],
);
