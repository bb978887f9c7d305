import { boolean, index, integer, jsonb, pgTable, serial, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import type { SearchColumn, SearchConditions } from '@ecrf/core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * Saved searches (检索模板): one user's conditions and columns, optionally shared with the study's staff.
 * The JSON is validated by core's search schemas when written and again when a template is used.
 */
export const searchTemplates = pgTable(
  'search_templates',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    name: varchar('name', { length: 50 }).notNull(),
    conditions: jsonb('conditions').$type<SearchConditions>().notNull(),
    columns: jsonb('columns').$type<SearchColumn[]>().notNull(),
    shared: boolean('shared').notNull().default(false),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('search_templates_study_key').on(t.studyId, t.id),
    index('search_templates_owner').on(t.studyId, t.ownerId),
  ],
);
