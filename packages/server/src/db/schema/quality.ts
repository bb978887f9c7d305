import { index, integer, jsonb, pgTable, serial, text, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { crfDataRecords, subjectRecords } from './capture.js';
import { doubts } from './doubt.js';
import { departments, users } from './system.js';
import { studies } from './study.js';

/**
 * A data quality run (数据核查, issue 37): a data manager's run of the study's checks over existing records, on the
 * job queue. `scope` is {kind:'study'} | {kind:'site', deptId} | {kind:'form', crfId}; `counts` the findings per rule.
 */
export const qualityRuns = pgTable(
  'quality_runs',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    scope: jsonb('scope').$type<Record<string, unknown>>().notNull(),
    /** queued | running | done | failed */
    state: varchar('state', { length: 12 }).notNull().default('queued'),
    jobId: varchar('job_id', { length: 64 }),
    recordsChecked: integer('records_checked').notNull().default(0),
    findingsCount: integer('findings_count').notNull().default(0),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    error: text('error'),
    startedBy: integer('started_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('quality_runs_study').on(t.studyId, t.createdAt), unique('quality_runs_study_key').on(t.studyId, t.id)],
);

/** One finding of a run: a rule that one record (or patient) breaks; a query raised from it is linked. */
export const qualityFindings = pgTable(
  'quality_findings',
  {
    id: serial('id').primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => qualityRuns.id),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    subjectRecordId: integer('subject_record_id')
      .notNull()
      .references(() => subjectRecords.id),
    crfDataRecordId: integer('crf_data_record_id').references(() => crfDataRecords.id),
    /** The patient's site when the run found it (findings per site). */
    deptId: integer('dept_id').references(() => departments.deptId),
    crfId: integer('crf_id'),
    itemName: varchar('item_name', { length: 100 }),
    /** The rule: e.g. 'required', 'range', 'editCheck:<id>', 'crossForm:visitBeforeEnrolment', 'duplicate'. */
    ruleKey: varchar('rule_key', { length: 120 }).notNull(),
    /** The rule's text, as a query raised from the finding says it. */
    ruleText: text('rule_text').notNull(),
    /** open | queried */
    status: varchar('status', { length: 12 }).notNull().default('open'),
    doubtId: integer('doubt_id').references(() => doubts.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('quality_findings_run_rule').on(t.runId, t.ruleKey),
    index('quality_findings_study').on(t.studyId, t.status),
    index('quality_findings_subject').on(t.subjectRecordId),
    unique('quality_findings_study_key').on(t.studyId, t.id),
  ],
);
