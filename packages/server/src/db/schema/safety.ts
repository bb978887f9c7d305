import { index, integer, jsonb, pgTable, serial, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { users } from './system.js';
import { studies } from './study.js';

/**
 * A serious adverse event's report (SAE, issue 37), one row per version: version 1 the initial report, 2… the
 * follow-up reports (随访报告). The first version's clock runs 24 hours from the investigator's awareness time
 * (`awareAt`); `deadlineAt` is kept so lists sort and count by it. `content` is the report's fields as submitted.
 */
export const saeReports = pgTable(
  'sae_reports',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    /** The AE log record (a record of the study's AE form) the report is about. */
    crfDataRecordId: integer('crf_data_record_id')
      .notNull()
      .references(() => crfDataRecords.id),
    version: integer('version').notNull().default(1),
    /** initial | followup */
    kind: varchar('kind', { length: 12 }).notNull().default('initial'),
    awareAt: timestamp('aware_at', { withTimezone: true }).notNull(),
    deadlineAt: timestamp('deadline_at', { withTimezone: true }).notNull(),
    /** pending (clock running) | submitted | withdrawn (the event is no longer serious) */
    state: varchar('state', { length: 12 }).notNull().default('pending'),
    content: jsonb('content').$type<Record<string, unknown>>().notNull().default({}),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    submittedBy: integer('submitted_by').references(() => users.userId),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('sae_reports_study_state').on(t.studyId, t.state, t.deadlineAt),
    index('sae_reports_subject').on(t.subjectRecordId),
    unique('sae_reports_record_version').on(t.crfDataRecordId, t.version),
    unique('sae_reports_study_key').on(t.studyId, t.id),
  ],
);
