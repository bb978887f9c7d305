import { sql } from 'drizzle-orm';
import {
  boolean,
  char,
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
import { timestamps } from './columns.js';
import { departments, users } from './system.js';

export interface SignConfig {
  enabled: boolean;
  meaning: string;
}

export interface FollowTrigger {
  enabled: boolean;
  crfId: number | null;
  itemName: string | null;
  offsetDays: number;
}

export interface BaseConfigField {
  name: string;
  header: string;
  display: boolean;
  required: boolean;
}

export const studies = pgTable(
  'studies',
  {
    studyId: serial('study_id').primaryKey(),
    studyName: varchar('study_name', { length: 100 }).notNull(),
    studyCode: varchar('study_code', { length: 50 }).notNull(),
    description: text('description').notNull().default(''),
    principal: varchar('principal', { length: 50 }).notNull().default(''),
    status: smallint('status').notNull().default(0),
    doubt: char('doubt', { length: 1 }).notNull().default('1'),
    multiDisease: boolean('multi_disease').notNull().default(false),
    enableSerialNumber: boolean('enable_serial_number').notNull().default(false),
    serialPrefix: varchar('serial_prefix', { length: 20 }).notNull().default(''),
    serialDigits: smallint('serial_digits').notNull().default(4),
    serialScope: varchar('serial_scope', { length: 10 }).notNull().default('study'),
    displayCrfColumn: jsonb('display_crf_column').$type<string[]>().notNull().default([]),
    signConfig: jsonb('sign_config').$type<SignConfig>().notNull().default({ enabled: false, meaning: '' }),
    followTriggers: jsonb('follow_triggers').$type<FollowTrigger[]>().notNull().default([]),
    baseConfig: jsonb('base_config').$type<BaseConfigField[]>().notNull().default([]),
    /** IANA zone the study's staff work in: "today", date defaults and every shown time are in it. */
    timeZone: varchar('time_zone', { length: 64 }).notNull().default('Asia/Shanghai'),
    /** 入组目标: how many patients the study means to enrol (null: none set), optionally by a date (YYYY-MM-DD). */
    enrolmentTarget: integer('enrolment_target'),
    enrolmentTargetDate: varchar('enrolment_target_date', { length: 10 }),
    /** 脊柱诊断分级标准: the bands the manual spine measures are diagnosed by, 'spec' or 'literature'. */
    spineBandSet: varchar('spine_band_set', { length: 20 }).notNull().default('spec'),
    /**
     * 缺失原因 (issue 37): the codes an item may be marked with instead of a value; a new study starts with
     * 未查 ND, 不适用 NA, 未知 UNK, 拒绝回答 ASKU.
     */
    missingCodes: jsonb('missing_codes')
      .$type<{ code: string; label: string }[]>()
      .notNull()
      .default([
        { code: 'ND', label: '未查' },
        { code: 'NA', label: '不适用' },
        { code: 'UNK', label: '未知' },
        { code: 'ASKU', label: '拒绝回答' },
      ]),
    /**
     * 不良事件 module (issue 37): on, the study has an AE log form (`aeCrfId`, a repeatable CRF the module made) and
     * serious events start the 24-hour reporting clock.
     */
    aeEnabled: boolean('ae_enabled').notNull().default(false),
    /** 医学编码 (issue 37): the items coded against a dictionary: [{crfId, itemName, kind: 'meddra'|'whodrug'}]. */
    codedItems: jsonb('coded_items')
      .$type<{ crfId: number; itemName: string; kind: 'meddra' | 'whodrug' }[]>()
      .notNull()
      .default([]),
    aeCrfId: integer('ae_crf_id'),
    /** 测试 ('test') until a manager's 上线 ('production'): test data is marked and purged at go-live (docs/lifecycle.md). */
    mode: varchar('mode', { length: 12 }).notNull().default('test'),
    wentLiveAt: timestamp('went_live_at', { withTimezone: true }),
    wentLiveBy: integer('went_live_by').references(() => users.userId),
    createdBy: integer('created_by').references(() => users.userId),
    // Studies are closed, not erased; a deleted study keeps its rows for the audit trail.
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('studies_code_live')
      .on(t.studyCode)
      .where(sql`${t.deletedAt} is null`),
  ],
);

export const studyDiseases = pgTable(
  'study_diseases',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    diseaseName: varchar('disease_name', { length: 100 }).notNull(),
    diseaseCode: varchar('disease_code', { length: 50 }).notNull(),
    crfIds: jsonb('crf_ids').$type<number[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [uniqueIndex('study_diseases_code').on(t.studyId, t.diseaseCode)],
);

export const studyRoles = pgTable(
  'study_roles',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    roleName: varchar('role_name', { length: 50 }).notNull(),
    remark: varchar('remark', { length: 200 }),
    permissions: jsonb('permissions').$type<string[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [uniqueIndex('study_roles_name').on(t.studyId, t.roleName)],
);

export const studyPersonnel = pgTable(
  'study_personnel',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    studyRoleId: integer('study_role_id')
      .notNull()
      .references(() => studyRoles.id),
    deptId: integer('dept_id').references(() => departments.deptId),
    /**
     * The member's sites (分中心, departments) when more than one: null or empty means the one site `deptId`.
     * Without 查看全部中心数据 a member sees and touches only these sites' patients (their sub-departments included).
     */
    siteIds: integer('site_ids').array(),
    ...timestamps,
  },
  (t) => [uniqueIndex('study_personnel_member').on(t.studyId, t.userId), index('study_personnel_user').on(t.userId)],
);

export const crfs = pgTable(
  'crfs',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    title: varchar('title', { length: 200 }).notNull(),
    currentVersion: integer('current_version').notNull().default(1),
    /** 双份录入 (issue 37): the form is entered twice, blind, by two users and reconciled by a third. */
    doubleEntry: boolean('double_entry').notNull().default(false),
    createdBy: integer('created_by').references(() => users.userId),
    ...timestamps,
  },
  (t) => [uniqueIndex('crfs_title').on(t.studyId, t.title)],
);

/** Versions are immutable: data keeps pointing at the version it was entered with. */
export const crfVersions = pgTable(
  'crf_versions',
  {
    id: serial('id').primaryKey(),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    version: integer('version').notNull(),
    definition: jsonb('definition').notNull(),
    source: varchar('source', { length: 20 }).notNull(),
    itemCount: integer('item_count').notNull(),
    /** A production study's open draft (草稿): test patients use it; publishing it is an amendment. One per CRF. */
    draft: boolean('draft').notNull().default(false),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('crf_versions_version').on(t.crfId, t.version),
    uniqueIndex('crf_versions_one_draft')
      .on(t.crfId)
      .where(sql`${t.draft}`),
    unique('crf_versions_study_key').on(t.studyId, t.id),
  ],
);

export const crfStages = pgTable(
  'crf_stages',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    parentId: integer('parent_id').notNull().default(0),
    name: varchar('name', { length: 100 }).notNull(),
    orderNum: integer('order_num').notNull().default(0),
    ...timestamps,
  },
  (t) => [index('crf_stages_study').on(t.studyId), unique('crf_stages_study_key').on(t.studyId, t.id)],
);

export const crfStageCrfs = pgTable(
  'crf_stage_crfs',
  {
    stageId: integer('stage_id')
      .notNull()
      .references(() => crfStages.id, { onDelete: 'cascade' }),
    crfId: integer('crf_id')
      .notNull()
      .references(() => crfs.id),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    /** forms §3: 1 = single, non-repeating form; 0 = repeatable. */
    repeat: smallint('repeat').notNull().default(1),
    orderNum: integer('order_num').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.stageId, t.crfId] }),
    index('crf_stage_crfs_crf').on(t.crfId),
    unique('crf_stage_crfs_study_key').on(t.studyId, t.stageId, t.crfId),
  ],
);

/** Serial-number counters per study, or per study and site; taken under a row lock. */
export const serialCounters = pgTable(
  'serial_counters',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    scopeKey: integer('scope_key').notNull().default(0),
    lastValue: integer('last_value').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.scopeKey] })],
);

/**
 * 方案修订: a published CRF version (or follow-up plan change) with the impact report computed on publishing
 * (core amendment/impact). Records move to the new version by jobs of kind 'crf-migration' (docs/lifecycle.md).
 */
export const amendments = pgTable(
  'amendments',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    name: varchar('name', { length: 200 }).notNull(),
    /** 'crf' or 'follow'. */
    kind: varchar('kind', { length: 10 }).notNull(),
    crfId: integer('crf_id').references(() => crfs.id),
    followPlanId: integer('follow_plan_id'),
    fromVersion: integer('from_version'),
    toVersion: integer('to_version'),
    /** The impact report's summary as computed at publishing (counts, never values). */
    report: jsonb('report').notNull().default({}),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('amendments_study').on(t.studyId), unique('amendments_study_key').on(t.studyId, t.id)],
);
