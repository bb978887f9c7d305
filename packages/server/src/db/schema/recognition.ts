import { index, integer, jsonb, pgTable, serial, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * One recognition (智能识别) of an uploaded lab-report image (docs/recognition.md). The row is made when the
 * signed-in user asks for a `tempId` for the file: only the SHA-256 of the tempId is kept, and the public
 * recognition call spends it once (`used_at`). The row then keeps what was read, and the record it fills, so a
 * monitor can verify the values against the source image (SDV).
 */
export const recognitions = pgTable(
  'recognitions',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    /** The source image (stored_files.file_key of the same study). */
    fileKey: varchar('file_key', { length: 64 }).notNull(),
    /**
     * Where the image is when it is an object of the external mode (its file key derives from this key), as the
     * public call's url named it; null for a file kept at its file key's place.
     */
    objectKey: varchar('object_key', { length: 300 }),
    /** SHA-256 (hex) of the tempId: 256 random bits, so no slow hash is needed. */
    tempIdHash: varchar('temp_id_hash', { length: 64 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** When the public call spent the tempId: a second call finds it used. */
    usedAt: timestamp('used_at', { withTimezone: true }),
    crfId: integer('crf_id'),
    subjectRecordId: integer('subject_record_id'),
    crfDataRecordId: integer('crf_data_record_id'),
    /** identifyType and identifyIndex of the call. */
    type: integer('type'),
    index: integer('index'),
    jobId: varchar('job_id', { length: 64 }),
    /** issued → running → done | failed. */
    state: varchar('state', { length: 16 }).notNull().default('issued'),
    /** The rows read (LabRow[]): clinical values, kept in the study's own row, never in the job record or logs. */
    rows: jsonb('rows'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    unique('recognitions_study_key').on(t.studyId, t.id),
    // The public call names no study: the tempId is found by its hash (on every node, as api_tokens).
    unique('recognitions_study_temp').on(t.studyId, t.tempIdHash),
    index('recognitions_temp').on(t.tempIdHash),
    index('recognitions_record').on(t.studyId, t.subjectRecordId),
  ],
);
