import {
  date,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  unique,
  bigint,
  varchar,
} from 'drizzle-orm/pg-core';
import { crfDataRecords, subjects } from './capture.js';
import { studies } from './study.js';
import { users } from './system.js';

/** Knowledge article types (知识分类): installation-wide, shared by every study's articles. */
export const knowledgeTypes = pgTable('knowledge_types', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 30 }).notNull().unique('knowledge_types_name'),
  sort: integer('sort').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Knowledge articles (知识库): patient education content. `study_id` null means platform-wide; a study's own
 * articles carry its id (for filtering only: an article is never joined with a study's clinical rows).
 * `content` is HTML already sanitised on the server with an allow-list (knowledge/sanitize.ts).
 */
export const knowledgeArticles = pgTable(
  'knowledge_articles',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id').references(() => studies.studyId),
    typeId: integer('type_id')
      .notNull()
      .references(() => knowledgeTypes.id),
    title: varchar('title', { length: 100 }).notNull(),
    summary: varchar('summary', { length: 200 }),
    coverKey: varchar('cover_key', { length: 64 }),
    content: text('content').notNull(),
    /** draft | published */
    status: varchar('status', { length: 10 }).notNull().default('draft'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.userId),
    updatedBy: integer('updated_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('knowledge_articles_list').on(t.status, t.studyId, t.updatedAt)],
);

/**
 * Pictures of patient-facing content (article covers and inline images, expert photos): served without
 * sign-in to the mobile pages. Only images are accepted; keys are 128-bit random.
 */
export const contentImages = pgTable('content_images', {
  fileKey: varchar('file_key', { length: 64 }).primaryKey(),
  fileName: varchar('file_name', { length: 255 }).notNull(),
  contentType: varchar('content_type', { length: 100 }).notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  sha256: varchar('sha256', { length: 64 }).notNull(),
  createdBy: integer('created_by').references(() => users.userId),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The study's doctors shown to its patients (医生管理). */
export const experts = pgTable(
  'experts',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    name: varchar('name', { length: 30 }).notNull(),
    photoKey: varchar('photo_key', { length: 64 }),
    /** 职称, e.g. 主任医师 */
    title: varchar('title', { length: 30 }),
    hospital: varchar('hospital', { length: 60 }),
    department: varchar('department', { length: 60 }),
    specialty: varchar('specialty', { length: 200 }),
    introduction: text('introduction'),
    sort: integer('sort').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('experts_study_key').on(t.studyId, t.id)],
);

/** The study's sites (项目介绍): one row per hospital, its name unique within the study. */
export const hospitals = pgTable(
  'hospitals',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    name: varchar('name', { length: 60 }).notNull(),
    introduction: text('introduction'),
    address: varchar('address', { length: 200 }),
    contact: varchar('contact', { length: 30 }),
    phone: varchar('phone', { length: 30 }),
    sort: integer('sort').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('hospitals_study_key').on(t.studyId, t.id), unique('hospitals_study_name').on(t.studyId, t.name)],
);

/**
 * Medical records (病历资料): documents and notes from a patient's hospital stay. Clinical data: every change is
 * audited, a deletion is a mark. `crf_data_record_id` names the CRF record it is the source document of.
 */
export const medicalRecords = pgTable(
  'medical_records',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    title: varchar('title', { length: 60 }).notNull(),
    /** 入院记录 | 出院小结 | 手术记录 | 检查报告 | 其他 */
    category: varchar('category', { length: 20 }).notNull(),
    visitDate: date('visit_date', { mode: 'string' }),
    hospital: varchar('hospital', { length: 60 }),
    note: text('note'),
    /** Uploaded files (stored_files of the same study): [{ fileKey, fileName }]. */
    files: jsonb('files').$type<{ fileKey: string; fileName: string }[]>().notNull().default([]),
    crfDataRecordId: integer('crf_data_record_id').references(() => crfDataRecords.id),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    unique('medical_records_study_key').on(t.studyId, t.id),
    index('medical_records_subject').on(t.studyId, t.subjectId),
  ],
);
