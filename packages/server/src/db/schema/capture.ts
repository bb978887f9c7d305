import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { crfs, studies } from './study.js';
import { departments, users } from './system.js';

export const subjects = pgTable(
  'subjects',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    identificationCode: varchar('identification_code', { length: 50 }).notNull(),
    subjectName: varchar('subject_name', { length: 50 }).notNull(),
    /** Stored in the patient encoding of platform §3: 1 male, 0 female. */
    gender: smallint('gender').notNull(),
    birth: varchar('birth', { length: 10 }),
    mobile: varchar('mobile', { length: 20 }),
    /** 身份证号, encrypted (field-crypto.ts): `v1.<iv>.<tag>.<ciphertext>`; never stored in clear (PIPL). */
    idNumberEnc: text('id_number_enc'),
    /** Keyed hash (HMAC-SHA-256, hex) of the normalised 身份证号, so uniqueness can be checked without decrypting. */
    idNumberHash: varchar('id_number_hash', { length: 64 }),
    diseaseCode: varchar('disease_code', { length: 50 }).notNull(),
    openId: varchar('open_id', { length: 100 }),
    qrCode: varchar('qr_code', { length: 64 }).notNull(),
    deptId: integer('dept_id').references(() => departments.deptId),
    /** 测试数据: enrolled while the study was in 测试, or against a draft; purged at go-live (docs/lifecycle.md). */
    test: boolean('test').notNull().default(false),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('subjects_code_live')
      .on(t.studyId, t.identificationCode)
      .where(sql`${t.deletedAt} is null`),
    uniqueIndex('subjects_id_number_live')
      .on(t.studyId, t.idNumberHash)
      .where(sql`${t.deletedAt} is null and ${t.idNumberHash} is not null`),
    index('subjects_study').on(t.studyId),
    // The patient list's order: its first page reads ten index entries, whatever the study's size.
    index('subjects_study_newest').on(t.studyId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    unique('subjects_study_key').on(t.studyId, t.id),
  ],
);

export const subjectRecords = pgTable(
  'subject_records',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    /** 0 在组, 1 完成, 2 退出. */
    state: smallint('state').notNull().default(0),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('subject_records_subject').on(t.subjectId),
    index('subject_records_study').on(t.studyId),
    unique('subject_records_study_key').on(t.studyId, t.id),
  ],
);

export interface SdvMark {
  by: number;
  byName: string;
  at: string;
}

export const crfDataRecords = pgTable(
  'crf_data_records',
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
    /** 1 未完成, 2 已提交. */
    state: smallint('state').notNull().default(1),
    /** Optimistic concurrency: every save increments it. */
    version: integer('version').notNull().default(1),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    sdv: jsonb('sdv').$type<Record<string, SdvMark>>().notNull().default({}),
    /**
     * 缺失原因 (issue 37): items marked with one of the study's missing-data codes instead of a value (item name →
     * code). Such an item holds no value; a required one is complete.
     */
    missing: jsonb('missing').$type<Record<string, string>>().notNull().default({}),
    /**
     * 参考范围 (issue 37): per item, the range its value was judged by at the last save ({ lower, upper, unit,
     * source: 'site' | 'item', rangeId }), so the export carries the range used.
     */
    labRanges: jsonb('lab_ranges').$type<Record<string, unknown>>().notNull().default({}),
    /** A single (non-repeating) form's record: at most one live one per subject, by the unique index below. */
    singleForm: boolean('single_form').notNull().default(false),
    createdBy: integer('created_by').references(() => users.userId),
    updatedBy: integer('updated_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('crf_data_records_subject').on(t.subjectRecordId, t.crfId),
    index('crf_data_records_study').on(t.studyId),
    // Retrieval (search-sql.ts): a condition on a form reads that form's live records of one study.
    index('crf_data_records_search')
      .on(t.studyId, t.crfId, t.subjectRecordId)
      .where(sql`${t.deletedAt} is null`),
    uniqueIndex('crf_data_records_single_live')
      .on(t.subjectRecordId, t.crfId)
      .where(sql`${t.singleForm} and ${t.deletedAt} is null`),
    unique('crf_data_records_study_key').on(t.studyId, t.id),
  ],
);

/**
 * Saves applied once per client request id (CRF-23 idempotency): the primary key makes a retry,
 * however concurrent, find the first save's answer instead of applying the values again.
 */
export const appliedRequests = pgTable(
  'applied_requests',
  {
    userId: integer('user_id').notNull(),
    requestId: varchar('request_id', { length: 64 }).notNull(),
    /** The save's study: the record is written in the save's transaction, on the study's node when distributed. */
    studyId: integer('study_id').notNull(),
    subjectRecordId: integer('subject_record_id').notNull(),
    crfId: integer('crf_id').notNull(),
    crfDataRecordId: integer('crf_data_record_id').notNull(),
    version: integer('version').notNull(),
    state: smallint('state').notNull(),
    /**
     * SHA-256 (hex) of what the save asked for (saveRequestHash): the same id sent with other values is refused
     * (409) instead of answered with the first save's result. Null on claims from before migration 0035.
     */
    requestHash: varchar('request_hash', { length: 64 }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.requestId] }),
    unique('applied_requests_study_key').on(t.studyId, t.userId, t.requestId),
  ],
);

/**
 * The audit trail: append-only. A database trigger (migration 0003) refuses UPDATE and DELETE,
 * so not even a bug or a console session can rewrite history.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    studyId: integer('study_id').notNull(),
    subjectRecordId: integer('subject_record_id'),
    crfDataRecordId: integer('crf_data_record_id'),
    crfId: integer('crf_id'),
    crfVersion: integer('crf_version'),
    action: varchar('action', { length: 40 }).notNull(),
    itemName: varchar('item_name', { length: 100 }),
    oldValue: jsonb('old_value'),
    newValue: jsonb('new_value'),
    reason: text('reason'),
    userId: integer('user_id').notNull(),
    userName: varchar('user_name', { length: 80 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The hash of the study's previous row (null for the study's first row): the chain link. */
    prevHash: varchar('prev_hash', { length: 64 }),
    /** SHA-256 over this row's canonical content and prevHash (modules/audit/audit-chain.ts). */
    hash: varchar('hash', { length: 64 }),
    /** A row about test data: never chained, and the only kind of row the go-live purge may delete (0038). */
    test: boolean('test').notNull().default(false),
  },
  (t) => [
    index('audit_events_record').on(t.crfDataRecordId, t.itemName),
    index('audit_events_subject').on(t.subjectRecordId),
    // Unique as well: the study's key for distribution by study (docs/deployment.md).
    uniqueIndex('audit_events_study').on(t.studyId, t.id),
    // Rows written before the chain existed: tiny or empty, so the start-up sealing check costs nothing.
    index('audit_events_unchained')
      .on(t.studyId, t.id)
      .where(sql`${t.hash} is null`),
  ],
);

/**
 * The newest link of each study's audit chain. Appending locks this row, so concurrent saves in
 * one study chain one after the other instead of forking; other studies are not held up.
 */
export const auditChainHeads = pgTable('audit_chain_heads', {
  studyId: integer('study_id').primaryKey(),
  /** Null while the study has no chained row. */
  hash: varchar('hash', { length: 64 }),
  lastId: bigint('last_id', { mode: 'number' }),
  rowCount: bigint('row_count', { mode: 'number' }).notNull().default(0),
});

export const signatures = pgTable(
  'signatures',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id').notNull(),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    signerName: varchar('signer_name', { length: 80 }).notNull(),
    meaning: varchar('meaning', { length: 200 }).notNull(),
    signedAt: timestamp('signed_at', { withTimezone: true }).notNull(),
    invalidatedAt: timestamp('invalidated_at', { withTimezone: true }),
    invalidatedReason: varchar('invalidated_reason', { length: 300 }),
  },
  (t) => [index('signatures_subject').on(t.subjectRecordId), unique('signatures_study_key').on(t.studyId, t.id)],
);

export const storedFiles = pgTable(
  'stored_files',
  {
    fileKey: varchar('file_key', { length: 64 }).primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    fileName: varchar('file_name', { length: 255 }).notNull(),
    contentType: varchar('content_type', { length: 100 }).notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: varchar('sha256', { length: 64 }).notNull(),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('stored_files_study').on(t.studyId), unique('stored_files_study_key').on(t.studyId, t.fileKey)],
);

/**
 * Object keys handed out with an upload token (external network mode, docs/object-storage.md) and not confirmed
 * yet: a browser may have posted bytes under the key without ever calling confirm. The row goes on confirm; what
 * is left a day after its token is removed from the store by the cleanup task (files/object-upload.service.ts).
 */
export const objectUploads = pgTable(
  'object_uploads',
  {
    objectKey: varchar('object_key', { length: 300 }).primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('object_uploads_issued').on(t.issuedAt), unique('object_uploads_study_key').on(t.studyId, t.objectKey)],
);

export const printTemplates = pgTable(
  'print_templates',
  {
    crfId: integer('crf_id')
      .primaryKey()
      .references(() => crfs.id),
    studyId: integer('study_id').notNull(),
    fileName: varchar('file_name', { length: 255 }).notNull(),
    content: text('content').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('print_templates_study_key').on(t.studyId, t.crfId)],
);
