import { eq, getTableColumns } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { AppContext } from '../app-context.js';
import * as schema from '../db/schema/index.js';
import { cachedRecordStudy } from './auth-cache.js';

/**
 * The tables whose rows a request may name by their key alone, each row carrying the study it belongs to. They
 * are named here, not passed in, so that route files (which do not import the schema) can locate their study
 * for the study guard (`config.study`) by the table's name.
 */
const STUDY_TABLE_NAMES = [
  'crfDataRecords',
  'crfStages',
  'crfs',
  'doubts',
  'followPlans',
  'followRecordCrfs',
  'followRecords',
  'searchTemplates',
  'storedFiles',
  'studyDiseases',
  'studyPersonnel',
  'studyRoles',
  'subjectRecords',
  'subjects',
] as const;
const STUDY_TABLES = Object.fromEntries(STUDY_TABLE_NAMES.map((name) => [name, schema[name]])) as Pick<
  typeof schema,
  (typeof STUDY_TABLE_NAMES)[number]
>;

export type StudyTable = keyof typeof STUDY_TABLES;

type ColumnsOf<T extends StudyTable> = (typeof STUDY_TABLES)[T]['_']['columns'];

/** What names one row of the table: the type of its primary key. */
export type RowKey<T extends StudyTable> = {
  [C in keyof ColumnsOf<T>]: ColumnsOf<T>[C] extends { _: { isPrimaryKey: true; data: infer Key } } ? Key : never;
}[keyof ColumnsOf<T>];

function primaryKeyOf(table: StudyTable): PgColumn {
  const keys = Object.values(getTableColumns(STUDY_TABLES[table])).filter((column) => column.primary);
  if (keys.length !== 1) throw new Error(`${table}: a study locator needs a single-column primary key`);
  return keys[0]!;
}

const PRIMARY_KEYS = Object.fromEntries(
  Object.keys(STUDY_TABLES).map((table) => [table, primaryKeyOf(table as StudyTable)]),
) as Record<StudyTable, PgColumn>;

async function readStudyId(ctx: AppContext, table: StudyTable, key: number | string) {
  const source = STUDY_TABLES[table];
  const [row] = await ctx.db.select({ studyId: source.studyId }).from(source).where(eq(PRIMARY_KEYS[table], key));
  return row?.studyId;
}

/**
 * The study a row belongs to, found by the row's primary key; undefined when there is no such row, which the study
 * guard refuses. A soft-deleted row still answers its study: what a deleted row means is for its service to say.
 */
export async function studyOf<T extends StudyTable>(
  ctx: AppContext,
  table: T,
  key: RowKey<T>,
): Promise<number | undefined> {
  // A casebook never changes study and the guard asks for it on most patient-level requests: cached per server.
  if (table === 'subjectRecords') {
    return cachedRecordStudy(ctx, key as number, () => readStudyId(ctx, table, key as number));
  }
  return readStudyId(ctx, table, key as number | string);
}
