import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  varchar,
} from 'drizzle-orm/pg-core';
import { subjectRecords, subjects } from './capture.js';
import { studies } from './study.js';
import { users } from './system.js';

/**
 * One row per study that has a randomization (issue 15). Its row lock orders everything that changes the
 * study's randomization: saving a configuration version, randomizing a patient (which also takes the study-wide
 * randomization number from `last_number`), unblinding all.
 */
export const randomizationStudies = pgTable('randomization_studies', {
  studyId: integer('study_id')
    .primaryKey()
    .references(() => studies.studyId),
  /** The configuration version in force (the newest). */
  currentConfigId: integer('current_config_id'),
  /** The last randomization number given: numbers run 1, 2, 3… per study without gaps. */
  lastNumber: integer('last_number').notNull().default(0),
  /** The test list's numbers (T0001…), apart from production's. */
  lastTestNumber: integer('last_test_number').notNull().default(0),
  /** End of study: after it every member sees the arms. */
  unblindedAllAt: timestamp('unblinded_all_at', { withTimezone: true }),
  unblindedAllBy: integer('unblinded_all_by').references(() => users.userId),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Configuration versions. A version is never changed: a new one is written (with a reason once a patient has
 * been randomized). The seed is drawn by the server from a CSPRNG and kept so an auditor can regenerate the
 * list (docs/randomization.md).
 */
export const randomizationConfigs = pgTable(
  'randomization_configs',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    version: integer('version').notNull(),
    method: varchar('method', { length: 30 }).notNull(),
    /** The whole RandomizationConfig of @ecrf/core, as validated. */
    config: jsonb('config').notNull(),
    seed: varchar('seed', { length: 64 }).notNull(),
    /** The test list's own seed (测试 randomizations never take production slots). */
    testSeed: varchar('test_seed', { length: 64 }),
    /** generated (from the seed), uploaded (a CSV list), or none (simple and minimization: drawn at the time). */
    listSource: varchar('list_source', { length: 20 }).notNull(),
    /** Why a version replaced a locked one (required then). */
    reason: text('reason'),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('randomization_configs_version').on(t.studyId, t.version),
    unique('randomization_configs_study_key').on(t.studyId, t.id),
  ],
);

/** Per stratum of a configuration version: how many slots its list has and how many are used (the counter row). */
export const randomizationStrata = pgTable(
  'randomization_strata',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    configId: integer('config_id')
      .notNull()
      .references(() => randomizationConfigs.id),
    /** core stratumKey(config, levels); '' for an unstratified list. */
    stratum: varchar('stratum', { length: 400 }).notNull(),
    /** Slots in the list (0 when there is no list ahead: simple, minimization). */
    size: integer('size').notNull().default(0),
    /** Slots taken: updated with RETURNING under the row lock, so concurrent randomizations take 1, 2, 3… */
    used: integer('used').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'randomization_strata_pk', columns: [t.studyId, t.configId, t.stratum] })],
);

/** The allocation list, ahead, per stratum (block methods and uploaded lists). */
export const randomizationSlots = pgTable(
  'randomization_slots',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    configId: integer('config_id')
      .notNull()
      .references(() => randomizationConfigs.id),
    stratum: varchar('stratum', { length: 400 }).notNull(),
    slot: integer('slot').notNull(),
    block: integer('block').notNull(),
    blockSize: integer('block_size').notNull(),
    arm: varchar('arm', { length: 20 }).notNull(),
    /** The blinded code (药物编号) a blinded user is told instead of the arm; reveals nothing of it. */
    kitCode: varchar('kit_code', { length: 16 }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'randomization_slots_pk', columns: [t.studyId, t.configId, t.stratum, t.slot] }),
    unique('randomization_slots_kit').on(t.studyId, t.kitCode),
  ],
);

/** A patient's randomization: irrevocable, once per patient. */
export const randomizations = pgTable(
  'randomizations',
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
    configId: integer('config_id')
      .notNull()
      .references(() => randomizationConfigs.id),
    /** Study-wide 1, 2, 3… (shown as R0001). */
    randomizationNo: integer('randomization_no').notNull(),
    /** The list stratum the slot was taken from ('' for unstratified lists and minimization). */
    stratum: varchar('stratum', { length: 400 }).notNull(),
    slot: integer('slot').notNull(),
    arm: varchar('arm', { length: 20 }).notNull(),
    kitCode: varchar('kit_code', { length: 16 }).notNull(),
    /** Taken from the test list while the study was in 测试 (numbered T0001…). */
    test: boolean('test').notNull().default(false),
    /** The factor levels used: { factorKey: levelCode }. */
    factorLevels: jsonb('factor_levels').$type<Record<string, string>>().notNull().default({}),
    /** Minimization: imbalance score per arm and how the arm was chosen. */
    scores: jsonb('scores').$type<Record<string, number>>(),
    chosenBy: varchar('chosen_by', { length: 10 }),
    randomizedBy: integer('randomized_by')
      .notNull()
      .references(() => users.userId),
    randomizedAt: timestamp('randomized_at', { withTimezone: true }).notNull(),
    /** Set once by an emergency unblinding, never cleared: the patient shows 已紧急揭盲 everywhere. */
    emergencyUnblindedAt: timestamp('emergency_unblinded_at', { withTimezone: true }),
    emergencyUnblindedBy: integer('emergency_unblinded_by').references(() => users.userId),
  },
  (t) => [
    unique('randomizations_subject').on(t.studyId, t.subjectId),
    unique('randomizations_number').on(t.studyId, t.randomizationNo),
    unique('randomizations_slot').on(t.studyId, t.configId, t.stratum, t.slot),
    unique('randomizations_study_key').on(t.studyId, t.id),
  ],
);

/** Unblinding records: emergency (one patient) or all (end of study). */
export const randomizationUnblindings = pgTable(
  'randomization_unblindings',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    kind: varchar('kind', { length: 10 }).notNull(),
    subjectId: integer('subject_id').references(() => subjects.id),
    reason: text('reason').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('randomization_unblindings_study_key').on(t.studyId, t.id),
    index('randomization_unblindings_subject').on(t.studyId, t.subjectId),
  ],
);
