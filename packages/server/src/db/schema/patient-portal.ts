import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { subjects } from './capture.js';
import { crfs, studies } from './study.js';
import { users } from './system.js';

/**
 * The patient side of a study (患者端, docs/patient-portal.md): whether patients may bind, the WeChat
 * official-account app id a real provider would use, and the greeting on the patient's home page.
 */
export const patientPortalSettings = pgTable('patient_portal_settings', {
  studyId: integer('study_id')
    .primaryKey()
    .references(() => studies.studyId),
  bindEnabled: boolean('bind_enabled').notNull().default(true),
  /** WeChat official-account app id (公众号 AppID); the secret is configuration, never stored here. */
  appId: varchar('app_id', { length: 40 }),
  welcome: varchar('welcome', { length: 500 }),
  updatedBy: integer('updated_by').references(() => users.userId),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** CRFs a study marks as patient-reported (ePRO): bound patients fill them on the mobile page. */
export const patientReportedCrfs = pgTable(
  'patient_reported_crfs',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.crfId] })],
);

/** Disease education shown to a bound patient whose diseaseCode matches (/project/{id}/wechat/disease). */
export const patientDiseaseNotes = pgTable(
  'patient_disease_notes',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    diseaseCode: varchar('disease_code', { length: 50 }).notNull(),
    title: varchar('title', { length: 100 }).notNull(),
    /** Plain text with line breaks: shown as text, never as HTML. */
    content: text('content').notNull(),
    updatedBy: integer('updated_by').references(() => users.userId),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.diseaseCode] })],
);

/**
 * One-time binding codes staff issue for a patient. Only the SHA-256 of the code is stored; a code
 * binds once (used_at), until expires_at, and issuing a new one revokes the patient's earlier ones.
 */
export const patientBindCodes = pgTable(
  'patient_bind_codes',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    codeHash: varchar('code_hash', { length: 64 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('patient_bind_codes_study_key').on(t.studyId, t.id),
    unique('patient_bind_codes_hash').on(t.studyId, t.codeHash),
    // Only one live (unused, unrevoked) code per patient.
    uniqueIndex('patient_bind_codes_live')
      .on(t.studyId, t.subjectId)
      .where(sql`${t.usedAt} is null and ${t.revokedAt} is null`),
  ],
);

/**
 * Patient sessions: apart from staff sessions, they open only the patient routes of one patient.
 * The token is `<studyId>.<secret>`; only the SHA-256 of the whole token is stored.
 */
export const patientSessions = pgTable(
  'patient_sessions',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    tokenHash: varchar('token_hash', { length: 64 }).notNull(),
    openId: varchar('open_id', { length: 100 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('patient_sessions_study_key').on(t.studyId, t.id),
    unique('patient_sessions_token').on(t.studyId, t.tokenHash),
    index('patient_sessions_subject').on(t.studyId, t.subjectId),
  ],
);
