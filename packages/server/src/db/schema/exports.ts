import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  timestamp,
  unique,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * The export log (导出记录): one row per data export, written when it is asked for (who, when, what, with which
 * options) and completed by the job when the file is ready (rows, size, SHA-256 of the file), so an auditor can
 * match a file found on someone's disk to the export that produced it. Append-and-complete: a row is never
 * deleted, and only its outcome columns change, once. Options hold ids and switches, never clinical values.
 */
export const exportLogs = pgTable(
  'export_logs',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    jobId: uuid('job_id').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    userName: varchar('user_name', { length: 80 }).notNull(),
    /** 'v2' (the current search's patients) or 'v3' (the whole study). */
    api: varchar('api', { length: 4 }).notNull(),
    format: varchar('format', { length: 20 }).notNull(),
    /** The export request as validated: forms, stages, states, labels, identifiers, date shift, patient scope. */
    options: jsonb('options').$type<Record<string, unknown>>().notNull(),
    /** running | done | failed | cancelled. */
    state: varchar('state', { length: 12 }).notNull().default('running'),
    /** Made while the study was in 测试 (its file says 测试数据). */
    test: boolean('test').notNull().default(false),
    patientCount: integer('patient_count'),
    /** Data rows written (the format's own rows: sheet rows, CSV lines, ItemData elements). */
    rowCount: bigint('row_count', { mode: 'number' }),
    fileName: varchar('file_name', { length: 200 }),
    fileSize: bigint('file_size', { mode: 'number' }),
    /** SHA-256 (hex) of the file as the owner downloads it. */
    sha256: varchar('sha256', { length: 64 }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    unique('export_logs_study_key').on(t.studyId, t.id),
    unique('export_logs_study_job').on(t.studyId, t.jobId),
    index('export_logs_study_created').on(t.studyId, t.createdAt),
  ],
);
