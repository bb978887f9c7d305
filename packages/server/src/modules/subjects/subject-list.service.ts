/** The patient list: its filters, each casebook's form progress, and the columns the study shows. */
import { and, count, desc, eq, gte, ilike, inArray, isNotNull, isNull, lte, ne } from 'drizzle-orm';
import { FORM_STATE, formStateOf, type CrfDefinition, type CrfNode } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfStageCrfs,
  crfVersions,
  crfs,
  doubts,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { casebookCount } from '../home/study-figures.js';
import { present, studySettingsOf, subjectQuery } from './subject.service.js';

export interface RecordFilter {
  identificationCode?: string;
  subjectName?: string;
  diseaseCode?: string;
  state?: number;
  beginDate?: string;
  endDate?: string;
  deleted?: boolean;
}

/** The filters that narrow the list beyond a state: a filter added to RecordFilter must be named here to compile. */
const NARROWING_FILTERS: Record<Exclude<keyof RecordFilter, 'state'>, true> = {
  identificationCode: true,
  subjectName: true,
  diseaseCode: true,
  beginDate: true,
  endDate: true,
  deleted: true,
};

/** The patient list: casebooks with their form progress and the study's extra CRF columns. */
export async function listRecords(
  ctx: AppContext,
  studyId: number,
  filter: RecordFilter,
  page: PageRequest,
  access: StudyAccess,
) {
  const sites = inCallerSites(access, subjects.deptId);
  const where = and(
    eq(subjectRecords.studyId, studyId),
    // Said of the patient too, so that the list's order comes from subjects_study_newest.
    eq(subjects.studyId, studyId),
    sites,
    filter.deleted ? isNotNull(subjectRecords.deletedAt) : isNull(subjectRecords.deletedAt),
    filter.identificationCode ? ilike(subjects.identificationCode, `%${filter.identificationCode}%`) : undefined,
    filter.subjectName ? ilike(subjects.subjectName, `%${filter.subjectName}%`) : undefined,
    filter.diseaseCode ? eq(subjects.diseaseCode, filter.diseaseCode) : undefined,
    filter.state !== undefined ? eq(subjectRecords.state, filter.state) : undefined,
    filter.beginDate ? gte(subjects.createdAt, new Date(`${filter.beginDate}T00:00:00+08:00`)) : undefined,
    filter.endDate ? lte(subjects.createdAt, new Date(`${filter.endDate}T23:59:59.999+08:00`)) : undefined,
  );
  // Unfiltered (the list as it opens, or by state only), the total is the study's kept count of casebooks, which
  // costs the same at any study size; a filter by name, code, disease or date counts the matches, and so does a
  // caller seeing some sites only (the kept count is the whole study's).
  const unfiltered =
    sites === undefined &&
    (Object.keys(NARROWING_FILTERS) as (keyof typeof NARROWING_FILTERS)[]).every((name) => !filter[name]);
  const total = unfiltered
    ? await casebookCount(ctx.db, studyId, filter.state)
    : (
        (await ctx.db
          .select({ total: count() })
          .from(subjectRecords)
          .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
          .where(where)) as [{ total: number }]
      )[0].total;
  const rows = await subjectQuery(ctx.db)
    .where(where)
    .orderBy(desc(subjects.createdAt), desc(subjects.id))
    .limit(page.limit)
    .offset(page.offset);
  if (rows.length === 0) return { list: [], total: Number(total) };
  const [study] = await ctx.db
    .select({ displayCrfColumn: studies.displayCrfColumn, multiDisease: studies.multiDisease })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  const expected = await expectedForms(ctx.db, studyId, study?.multiDisease ?? false);
  const records = await ctx.db
    .select({
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfDataRecords.crfId,
      state: crfDataRecords.state,
      values: crfDataRecords.values,
      updatedAt: crfDataRecords.updatedAt,
    })
    .from(crfDataRecords)
    .where(
      and(
        inArray(
          crfDataRecords.subjectRecordId,
          rows.map((r) => r.subjectRecordId),
        ),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(crfDataRecords.updatedAt);
  const open = await ctx.db
    .select({ subjectRecordId: doubts.subjectRecordId, n: count() })
    .from(doubts)
    .where(
      and(
        inArray(
          doubts.subjectRecordId,
          rows.map((r) => r.subjectRecordId),
        ),
        ne(doubts.optionType, 1),
      ),
    )
    .groupBy(doubts.subjectRecordId);
  const list = rows.map((row) => {
    const mine = records.filter((r) => r.subjectRecordId === row.subjectRecordId);
    const columns: Record<string, unknown> = {};
    for (const name of study?.displayCrfColumn ?? []) {
      for (const r of mine) {
        if (r.values[name] !== undefined && r.values[name] !== null && r.values[name] !== '') {
          columns[name] = r.values[name];
        }
      }
    }
    return {
      ...present(ctx, access, row),
      crfStates: {
        ...formProgress(expected(row.diseaseCode), mine),
        doubt: Number(open.find((o) => o.subjectRecordId === row.subjectRecordId)?.n ?? 0),
      },
      columns,
    };
  });
  return { list, total: Number(total) };
}

/**
 * The forms a patient is expected to fill: the forms of the study's stages (a repeatable form counts
 * once); in multi-disease mode, those of them the patient's disease lists, when it lists any. Two
 * statements for the whole page, not one per patient.
 */
async function expectedForms(db: Db, studyId: number, multiDisease: boolean) {
  const staged = await db
    .selectDistinct({ crfId: crfStageCrfs.crfId })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.studyId, studyId));
  const all = staged.map((s) => s.crfId);
  if (!multiDisease) return () => all;
  const diseases = await db
    .select({ diseaseCode: studyDiseases.diseaseCode, crfIds: studyDiseases.crfIds })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId));
  const byDisease = new Map(diseases.map((d) => [d.diseaseCode, all.filter((id) => d.crfIds.includes(id))] as const));
  return (diseaseCode: string) => {
    const own = byDisease.get(diseaseCode);
    return own && own.length > 0 ? own : all;
  };
}

/**
 * 表单进度: of the forms the patient is expected to fill, how many are submitted (every record of the
 * form submitted) and how many are started but not submitted. Forms outside the expected set do not
 * count, so submitted never exceeds total.
 */
function formProgress(expected: readonly number[], records: ReadonlyArray<{ crfId: number; state: number }>) {
  let submitted = 0;
  let incomplete = 0;
  for (const crfId of expected) {
    const state = formStateOf(records.filter((r) => r.crfId === crfId));
    if (state === FORM_STATE.submitted) submitted += 1;
    else if (state === FORM_STATE.incomplete) incomplete += 1;
  }
  return { total: expected.length, submitted, incomplete };
}

/** Titles of the study's CRF items, from the newest version of each CRF. */
async function itemTitles(db: Db, studyId: number) {
  const rows = await db
    .select({ definition: crfVersions.definition })
    .from(crfVersions)
    .innerJoin(crfs, and(eq(crfs.id, crfVersions.crfId), eq(crfs.currentVersion, crfVersions.version)))
    .where(eq(crfs.studyId, studyId));
  const titles = new Map<string, string>();
  const walk = (nodes: CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && !titles.has(node.name)) titles.set(node.name, node.title);
      walk(node.children ?? []);
    }
  };
  for (const row of rows) walk((row.definition as CrfDefinition).children);
  return titles;
}

export async function recordColumns(ctx: AppContext, studyId: number) {
  const { study, baseConfig } = await studySettingsOf(ctx.db, studyId);
  const titles = study.displayCrfColumn.length > 0 ? await itemTitles(ctx.db, studyId) : new Map<string, string>();
  return [
    ...baseConfig
      .filter((f) => f.display)
      .map((f) => ({
        key: f.name,
        title: f.header,
        source: 'base' as const,
        width: f.name === 'identificationCode' ? 140 : 120,
      })),
    ...study.displayCrfColumn.map((name) => ({
      key: name,
      title: titles.get(name) ?? name,
      source: 'crf' as const,
      width: 150,
    })),
  ];
}
