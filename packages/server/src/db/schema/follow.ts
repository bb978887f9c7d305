import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { timestamps } from './columns.js';
import { crfDataRecords, subjectRecords, subjects } from './capture.js';
import { crfs, studies } from './study.js';
import { users } from './system.js';

/** A follow-up plan (随访计划): ordered visits of one study, optionally of one disease. */
export const followPlans = pgTable(
  'follow_plans',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    planName: varchar('plan_name', { length: 100 }).notNull(),
    /** Null: every patient of the study; otherwise only patients of this disease. */
    diseaseCode: varchar('disease_code', { length: 50 }),
    remark: varchar('remark', { length: 500 }).notNull().default(''),
    /** A production study's open draft of this plan's visits (草稿), published as an amendment; null: none. */
    draft: jsonb('draft'),
    createdBy: integer('created_by').references(() => users.userId),
    updatedBy: integer('updated_by').references(() => users.userId),
    ...timestamps,
    // Plans are retired, not erased: visits already made keep naming theirs.
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('follow_plans_study').on(t.studyId), unique('follow_plans_study_key').on(t.studyId, t.id)],
);

/** One visit of a plan; a visit removed from a plan keeps its row (deleted_at) for the visits that name it. */
export const followPlanVisits = pgTable(
  'follow_plan_visits',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    planId: integer('plan_id')
      .notNull()
      .references(() => followPlans.id),
    sort: smallint('sort').notNull(),
    visitName: varchar('visit_name', { length: 50 }).notNull(),
    offset: integer('offset').notNull(),
    /** day | week | month (core OFFSET_UNITS). */
    unit: varchar('unit', { length: 10 }).notNull(),
    windowBefore: integer('window_before').notNull().default(0),
    windowAfter: integer('window_after').notNull().default(0),
    repeatEvery: integer('repeat_every'),
    repeatUntil: integer('repeat_until'),
    responsibleUserId: integer('responsible_user_id').references(() => users.userId),
    crfIds: jsonb('crf_ids').$type<number[]>().notNull().default([]),
    /**
     * A visit a plan's draft adds (草稿, issue 36): test patients are scheduled on it before publishing, and
     * publishing adopts the row (false), so their visits keep pointing at it. Never part of the live plan while true.
     */
    draft: boolean('draft').notNull().default(false),
    ...timestamps,
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('follow_plan_visits_plan').on(t.planId), unique('follow_plan_visits_study_key').on(t.studyId, t.id)],
);

/**
 * One visit of one patient (随访记录). Dates are the study zone's calendar dates (`YYYY-MM-DD`). `state` is
 * core's followStateOf of the row on the study's today, kept current by every change and the hourly task,
 * so lists filter and count by it.
 */
export const followRecords = pgTable(
  'follow_records',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    /** Null for a custom (unplanned) visit. */
    planId: integer('plan_id').references(() => followPlans.id),
    planVisitId: integer('plan_visit_id').references(() => followPlanVisits.id),
    occurrence: integer('occurrence').notNull().default(0),
    visitName: varchar('visit_name', { length: 80 }).notNull(),
    plannedDate: varchar('planned_date', { length: 10 }).notNull(),
    windowBefore: integer('window_before').notNull().default(0),
    windowAfter: integer('window_after').notNull().default(0),
    responsibleUserId: integer('responsible_user_id').references(() => users.userId),
    state: smallint('state').notNull().default(0),
    /** lost | deleted | null: a person's mark, with its reason. */
    mark: varchar('mark', { length: 10 }),
    markReason: varchar('mark_reason', { length: 500 }),
    completedOn: varchar('completed_on', { length: 10 }),
    /** A person moved the planned date (with a reason): rescheduling leaves it alone. */
    dateModified: boolean('date_modified').notNull().default(false),
    custom: boolean('custom').notNull().default(false),
    createdBy: integer('created_by').references(() => users.userId),
    ...timestamps,
  },
  (t) => [
    index('follow_records_study_state').on(t.studyId, t.state, t.plannedDate),
    index('follow_records_subject').on(t.subjectId),
    unique('follow_records_study_key').on(t.studyId, t.id),
    // One visit per plan slot and patient: a retry or a concurrent trigger cannot make it twice.
    uniqueIndex('follow_records_slot')
      .on(t.studyId, t.subjectId, t.planVisitId, t.occurrence)
      .where(sql`${t.planVisitId} is not null`),
  ],
);

/** The forms of one patient visit; `crf_data_record_id` is the form record filled for it (null until saved). */
export const followRecordCrfs = pgTable(
  'follow_record_crfs',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    followRecordId: integer('follow_record_id')
      .notNull()
      .references(() => followRecords.id),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    crfDataRecordId: integer('crf_data_record_id').references(() => crfDataRecords.id),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    note: text('note'),
    ...timestamps,
  },
  (t) => [
    unique('follow_record_crfs_study_key').on(t.studyId, t.id),
    unique('follow_record_crfs_visit_crf').on(t.studyId, t.followRecordId, t.crfId),
    index('follow_record_crfs_data').on(t.crfDataRecordId),
  ],
);
