import { index, integer, pgTable, serial, smallint, text, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * 在线咨询: a question about a study asked by a patient (from the patient pages) or entered by staff on a
 * patient's behalf, answered by staff. States: 0 待回复, 1 已回复, 2 已关闭 (docs/content.md).
 */
export const consultations = pgTable(
  'consultations',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    /** The patient the question is from (a subject of the study); null for an anonymous visitor's question. */
    subjectId: integer('subject_id'),
    /** 'patient': asked on the patient side; 'staff': entered by staff on the patient's behalf. */
    source: varchar('source', { length: 10 }).notNull(),
    /** The staff user who entered it (source 'staff'). */
    createdBy: integer('created_by').references(() => users.userId),
    title: varchar('title', { length: 100 }).notNull(),
    question: text('question').notNull(),
    state: smallint('state').notNull().default(0),
    answer: text('answer'),
    answeredBy: integer('answered_by').references(() => users.userId),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    closedBy: integer('closed_by').references(() => users.userId),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('consultations_study_key').on(t.studyId, t.id),
    index('consultations_study_state').on(t.studyId, t.state, t.createdAt),
  ],
);
