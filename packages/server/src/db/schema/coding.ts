import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { users } from './system.js';
import { studies } from './study.js';

/**
 * A medical coding dictionary a study loaded (医学编码, issue 37): MedDRA (中文版 or English) or WHODrug, from the
 * licensed distribution's files. The platform ships none; tests use a made-up one in the same file format.
 */
export const codingDictionaries = pgTable(
  'coding_dictionaries',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    /** meddra | whodrug */
    kind: varchar('kind', { length: 12 }).notNull(),
    /** The distribution's own version, e.g. 27.0 or 2024 Mar 1. */
    version: varchar('version', { length: 40 }).notNull(),
    /** zh | en */
    language: varchar('language', { length: 8 }).notNull(),
    /** The study codes against its active dictionary of each kind; an upgrade loads a new one and activates it. */
    active: boolean('active').notNull().default(false),
    termCount: integer('term_count').notNull().default(0),
    loadedBy: integer('loaded_by').references(() => users.userId),
    loadedAt: timestamp('loaded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('coding_dictionaries_study').on(t.studyId, t.kind),
    // A study codes against one active dictionary of each kind.
    uniqueIndex('coding_dictionaries_one_active')
      .on(t.studyId, t.kind)
      .where(sql`${t.active}`),
    unique('coding_dictionaries_study_key').on(t.studyId, t.id),
  ],
);

/**
 * One term of a dictionary: MedDRA levels llt, pt, hlt, hlgt, soc (an llt's parent its pt; a pt's its primary soc,
 * with its path in `extra`), WHODrug `drug` names with their ATC codes in `extra`.
 */
export const codingTerms = pgTable(
  'coding_terms',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    dictionaryId: integer('dictionary_id')
      .notNull()
      .references(() => codingDictionaries.id),
    level: varchar('level', { length: 8 }).notNull(),
    code: varchar('code', { length: 20 }).notNull(),
    name: text('name').notNull(),
    /** The name folded for matching (case, width, spaces), so exact and synonym matches are one index lookup. */
    matchKey: text('match_key').notNull(),
    parentCode: varchar('parent_code', { length: 20 }),
    /** Whether the term is current (MedDRA llt_currency Y); a non-current term is offered but not auto-coded. */
    current: boolean('current').notNull().default(true),
    extra: jsonb('extra').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('coding_terms_match').on(t.dictionaryId, t.matchKey),
    index('coding_terms_code').on(t.dictionaryId, t.level, t.code),
    unique('coding_terms_study_key').on(t.studyId, t.id),
  ],
);

/**
 * The coding of one coded item of one record: its verbatim text, the dictionary it was coded against and the codes
 * (`coding`: llt/pt/hlt/hlgt/soc codes and names, or drug and ATC). `state`: uncoded | auto | manual | approved.
 */
export const codedItems = pgTable(
  'coded_items',
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
    itemName: varchar('item_name', { length: 100 }).notNull(),
    verbatim: text('verbatim').notNull(),
    dictionaryId: integer('dictionary_id').references(() => codingDictionaries.id),
    state: varchar('state', { length: 12 }).notNull().default('uncoded'),
    coding: jsonb('coding').$type<Record<string, unknown>>(),
    codedBy: integer('coded_by').references(() => users.userId),
    codedAt: timestamp('coded_at', { withTimezone: true }),
    approvedBy: integer('approved_by').references(() => users.userId),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('coded_items_record_item').on(t.crfDataRecordId, t.itemName),
    index('coded_items_study_state').on(t.studyId, t.state),
    index('coded_items_subject').on(t.subjectRecordId),
    unique('coded_items_study_key').on(t.studyId, t.id),
  ],
);
