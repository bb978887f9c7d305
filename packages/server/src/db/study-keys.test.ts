import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { queryRows } from './client.js';

/**
 * The claim docs/deployment.md makes: a network of hospitals can outgrow one database by distributing the
 * study-scoped tables by `study_id` (Citus). Citus requires every primary key and unique key of a distributed
 * table to contain the distribution column, and co-locates the rows of one study on one node only when every
 * study-scoped table carries it. Checked here against the migrated database's own catalog, not the schema files.
 */

/** Distributed by study_id: every row belongs to exactly one study. */
export const STUDY_SCOPED = [
  'studies',
  'study_diseases',
  'study_roles',
  'study_personnel',
  'crfs',
  'crf_versions',
  'crf_stages',
  'crf_stage_crfs',
  'serial_counters',
  'subjects',
  'subject_records',
  'crf_data_records',
  'applied_requests',
  'audit_events',
  'audit_chain_heads',
  'signatures',
  'stored_files',
  'object_uploads',
  'study_figures',
  'study_figure_changes',
  'print_templates',
  'search_templates',
  'doubts',
  'doubt_messages',
  'item_comments',
  'quality_runs',
  'quality_findings',
  'sae_reports',
  'coding_dictionaries',
  'coding_terms',
  'coded_items',
  'double_entries',
  'lab_reference_ranges',
  'message_rules',
  'patient_messages',
  'message_opt_outs',
  'outbox_events',
  'outbox_deliveries',
  'api_tokens',
  'export_logs',
  'follow_plans',
  'follow_plan_visits',
  'follow_records',
  'follow_record_crfs',
  'calendar_events',
  'randomization_studies',
  'randomization_configs',
  'randomization_strata',
  'randomization_slots',
  'randomizations',
  'randomization_unblindings',
  'patient_portal_settings',
  'patient_reported_crfs',
  'patient_disease_notes',
  'patient_bind_codes',
  'patient_sessions',
  'consultations',
  'experts',
  'hospitals',
  'medical_records',
  'recognitions',
  'study_locks',
  'amendments',
] as const;

/** Reference tables: small, read by every study, replicated to every node. */
export const REFERENCE = [
  'departments',
  'users',
  'roles',
  'user_roles',
  'menus',
  'role_menus',
  'sys_configs',
  'notices',
  'knowledge_types',
  'content_images',
] as const;

/**
 * Installation-wide state kept on the coordinator (never joined with one study's rows in a query), each with
 * the reason it is not distributed by study. A table here may carry a nullable study_id for filtering only.
 */
export const COORDINATOR_LOCAL: Record<string, string> = {
  sessions: 'sign-in sessions of users, who belong to no one study',
  password_history: 'earlier password hashes of users, who belong to no one study (the last five may not be reused)',
  spent_refresh_tokens: 'token rotation, per session',
  kv_entries: 'short-lived shared state (captcha answers, lockout counters) when no Redis is configured',
  oper_logs: 'the installation-wide operation log; study_id is optional (system pages have none)',
  jobs: "the installation's job queue, claimed by every app server across studies; study_id is optional",
  scheduled_runs: 'one claim per recurring task and period, installation-wide',
  auth_generation:
    'one counter raised by triggers when users, roles, menus or study staff change: the key of the cached permissions',
  notice_reads: "each user's read marks of installation-wide notices",
  data_change_infos: 'announcements of changed data scopes (addsysdatachangeinfo); study_id is optional',
  knowledge_articles:
    'patient education content, platform-wide or of one study; study_id is optional and only filters, never joined with clinical rows',
};

interface Key {
  table: string;
  key: string;
  primary: boolean;
  partial: boolean;
  columns: string[];
}

let t: TestApp;
let tables: string[];
let studyIdColumns: Map<string, { nullable: boolean }>;
let keys: Key[];

beforeAll(async () => {
  t = await createTestApp();
  const tableRows = await queryRows<{ table: string }>(
    t.db,
    sql`select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
  );
  tables = tableRows.map((r) => r.table);
  const columnRows = await queryRows<{ table: string; nullable: string }>(
    t.db,
    sql`select table_name as table, is_nullable as nullable from information_schema.columns
        where table_schema = 'public' and column_name = 'study_id'`,
  );
  studyIdColumns = new Map(columnRows.map((r) => [r.table, { nullable: r.nullable === 'YES' }]));
  // Primary keys, unique constraints and unique indexes alike: Citus holds all three to the same rule.
  const keyRows = await queryRows<{ table: string; key: string; primary: boolean; partial: boolean; columns: string }>(
    t.db,
    sql`select t.relname as table, i.relname as key, x.indisprimary as primary, x.indpred is not null as partial,
          (select string_agg(a.attname, ',' order by k.ord) from unnest(x.indkey::int2[]) with ordinality as k(attnum, ord)
             join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as columns
        from pg_index x
        join pg_class t on t.oid = x.indrelid
        join pg_class i on i.oid = x.indexrelid
        join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and x.indisunique`,
  );
  keys = keyRows.map((r) => ({ ...r, columns: (r.columns ?? '').split(',') }));
});
afterAll(() => t.close());

/** A key a row can be found by: the primary key or a unique key over whole rows (not a partial index). */
const studyKeysOf = (table: string) =>
  keys.filter((k) => k.table === table && !k.partial && k.columns.includes('study_id'));

describe('study_id in the keys of study-scoped tables (distribution by study)', () => {
  it('every table with a study_id column has study_id in its primary key or in a unique key', () => {
    const withColumn = [...studyIdColumns.keys()].filter((table) => !(table in COORDINATOR_LOCAL)).sort();
    const missing = withColumn.filter((table) => studyKeysOf(table).length === 0);
    expect(missing, 'tables with study_id but no key containing it').toEqual([]);
  });

  it('every listed study-scoped table exists, carries a non-null study_id and a key with it', () => {
    for (const table of STUDY_SCOPED) {
      expect(tables, `table ${table}`).toContain(table);
      expect(studyIdColumns.get(table), `${table}.study_id`).toEqual({ nullable: false });
      expect(studyKeysOf(table).length, `${table}: a primary or unique key with study_id`).toBeGreaterThan(0);
    }
  });

  it('every table is classified as study-scoped, reference or coordinator-local (docs/deployment.md lists them)', () => {
    const known = new Set<string>([...STUDY_SCOPED, ...REFERENCE, ...Object.keys(COORDINATOR_LOCAL)]);
    expect(tables.filter((table) => !known.has(table))).toEqual([]);
    // Reference tables hold no study's rows.
    expect(REFERENCE.filter((table) => studyIdColumns.has(table))).toEqual([]);
  });
});
