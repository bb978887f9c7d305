import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';

/**
 * What `study_figures` counts (migration 0033 keeps the codes in its triggers): the study home's figures as
 * counts kept per study, so that the home page costs the same at 100 patients and at 100,000
 * (docs/decisions.md "Study home figures as counters").
 */
export const STUDY_FIGURE = {
  /** Casebooks (subject_records) by state; ref 0. */
  CASEBOOKS: 1,
  /** Forms (crf_data_records) by CRF (ref) and state. */
  FORMS: 2,
  /** Queries (doubts) by CRF (ref) and option_type. */
  QUERIES: 3,
  /** Planned visits (follow_records, custom ones apart) by planned visit (ref), visit name (label) and state. */
  VISITS: 4,
  /** Patients enrolled (subjects) by month in the study's zone (label `YYYY-MM`). */
  ENROLMENT: 5,
} as const;

export interface StudyFigure {
  figure: number;
  ref: number;
  label: string;
  state: number;
  count: number;
  /** For VISITS: the planned visit's current name, plan and place in it (null for a visit no longer planned). */
  visitName: string | null;
  planId: number | null;
  sort: number | null;
}

/** A figure row as the statements below answer it. */
interface FigureRow {
  figure: number;
  ref: number;
  label: string;
  state: number;
  count: number;
  visit_name: string | null;
  plan_id: number | null;
  sort: number | null;
}

const figureOf = (r: FigureRow): StudyFigure => ({
  figure: Number(r.figure),
  ref: Number(r.ref),
  label: r.label,
  state: Number(r.state),
  count: Number(r.count),
  visitName: r.visit_name,
  planId: r.plan_id === null ? null : Number(r.plan_id),
  sort: r.sort === null ? null : Number(r.sort),
});

const intList = (ids: readonly number[]) =>
  sql.join(
    ids.map((id) => sql`${id}::int`),
    sql`, `,
  );

/**
 * A study's figures: each count is its folded row plus the deltas appended since the last fold, read in one
 * statement, so in one snapshot. `leaveOut`: patients (by id) whose rows are taken off the kept counts in the same
 * statement, counted live as recount_study_figures counts them (a production study's test patients, who are few),
 * so the figures left are exactly the other patients'.
 */
export async function readStudyFigures(
  db: Db,
  studyId: number,
  leaveOut: readonly number[] = [],
): Promise<StudyFigure[]> {
  const takenOff =
    leaveOut.length === 0
      ? sql``
      : sql`union all
            select figure, ref, label, state, -1 from (${figureRows(studyId, sql`s.id in (${intList(leaveOut)})`)}) l`;
  const rows = await queryRows<FigureRow>(
    db,
    sql`select f.figure, f.ref, f.label, f.state, f.count, pv.visit_name, pv.plan_id, pv.sort
        from (
          select figure, ref, label, state, sum(n)::int as count from (
            select figure, ref, label, state, count as n from study_figures where study_id = ${studyId}
            union all
            select figure, ref, label, state, delta from study_figure_changes where study_id = ${studyId}
            ${takenOff}
          ) c group by 1, 2, 3, 4 having sum(n) <> 0
        ) f
        left join follow_plan_visits pv on f.figure = ${STUDY_FIGURE.VISITS} and pv.id = f.ref`,
  );
  return rows.map(figureOf);
}

/**
 * A study's figures counted live over the patients of some sites (分中心): what readStudyFigures answers from the kept
 * counts, for a caller who sees only these sites. The same rows counted as recount_study_figures counts them
 * (migration 0033), each joined to its patient's site; its cost grows with the sites' patients, which is why the
 * all-sites caller keeps reading the kept counts. No sites: no figures. `leaveOut`: patients (by id) not counted
 * (a production study's test patients).
 */
export async function readSiteFigures(
  db: Db,
  studyId: number,
  siteIds: readonly number[],
  leaveOut: readonly number[] = [],
): Promise<StudyFigure[]> {
  if (siteIds.length === 0) return [];
  const counted = leaveOut.length === 0 ? sql`true` : sql`s.id not in (${intList(leaveOut)})`;
  const rows = await queryRows<FigureRow>(
    db,
    sql`select f.figure, f.ref, f.label, f.state, f.count, pv.visit_name, pv.plan_id, pv.sort
        from (
          select figure, ref, label, state, count(*)::int as count
          from (${figureRows(studyId, sql`s.dept_id in (${intList(siteIds)}) and ${counted}`)}) r
          group by 1, 2, 3, 4
        ) f
        left join follow_plan_visits pv on f.figure = ${STUDY_FIGURE.VISITS} and pv.id = f.ref`,
  );
  return rows.map(figureOf);
}

/**
 * One row (figure, ref, label, state) per counted row of the study's patients that `patients` (a condition on
 * subjects `s`) picks: the rows recount_study_figures counts (migration 0033), reached through their patient.
 */
function figureRows(studyId: number, patients: SQL): SQL {
  return sql`with patients as (
          select s.id as subject_id, s.created_at, s.deleted_at from subjects s
          where s.study_id = ${studyId} and ${patients}
        ), casebooks as (
          select sr.id, sr.state, sr.deleted_at from subject_records sr join patients p on p.subject_id = sr.subject_id
          where sr.study_id = ${studyId}
        )
        select ${STUDY_FIGURE.CASEBOOKS}::smallint as figure, 0 as ref, '' as label, c.state::smallint as state
          from casebooks c where c.deleted_at is null
        union all
        select ${STUDY_FIGURE.FORMS}::smallint, r.crf_id, '', r.state::smallint
          from crf_data_records r join casebooks c on c.id = r.subject_record_id
          where r.study_id = ${studyId} and r.deleted_at is null
        union all
        select ${STUDY_FIGURE.QUERIES}::smallint, d.crf_id, '', d.option_type::smallint
          from doubts d join casebooks c on c.id = d.subject_record_id
          where d.study_id = ${studyId}
        union all
        select ${STUDY_FIGURE.VISITS}::smallint, coalesce(v.plan_visit_id, 0), v.visit_name::text, v.state::smallint
          from follow_records v join patients p on p.subject_id = v.subject_id
          where v.study_id = ${studyId} and not v.custom
        union all
        select ${STUDY_FIGURE.ENROLMENT}::smallint, 0, study_figure_month(${studyId}::int, p.created_at), 0::smallint
          from patients p where p.deleted_at is null`;
}

/** The study's casebooks not deleted, in one state or all: the patient list's total when it is not filtered. */
export async function casebookCount(db: Db, studyId: number, state?: number): Promise<number> {
  const inState = state === undefined ? sql`true` : sql`state = ${state}`;
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select coalesce(sum(n), 0)::int as n from (
          select count as n from study_figures
          where study_id = ${studyId} and figure = ${STUDY_FIGURE.CASEBOOKS} and ${inState}
          union all
          select delta from study_figure_changes
          where study_id = ${studyId} and figure = ${STUDY_FIGURE.CASEBOOKS} and ${inState}
        ) c`,
  );
  return Number(row?.n ?? 0);
}

/** Deltas folded per run at most; the rest wait for the next minute. */
const FOLD_BATCH = 20_000;

/**
 * Folds the appended deltas into the counts. Safe on several app servers at once: each delta is deleted, and so
 * folded, by one of them; the counts are upserted in key order, so two folds never wait for each other in a
 * circle. Clinical writes only append deltas and never wait for this.
 */
export async function foldStudyFigures(db: Db): Promise<string> {
  const [folded] = await queryRows<{ deltas: number }>(
    db,
    sql`with moved as (
          delete from study_figure_changes where (study_id, id) in (
            select study_id, id from study_figure_changes order by id limit ${FOLD_BATCH})
          returning study_id, figure, ref, label, state, delta
        ), upserted as (
          insert into study_figures as f (study_id, figure, ref, label, state, count)
          select study_id, figure, ref, label, state, sum(delta) from moved
          group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
          on conflict (study_id, figure, ref, label, state) do update set count = f.count + excluded.count
        )
        select count(*)::int as deltas from moved`,
  );
  await db.execute(sql`delete from study_figures where count = 0`);
  const deltas = Number(folded?.deltas ?? 0);
  return deltas > 0 ? `${deltas} figure changes folded` : '';
}

/** Each minute on every app server (the fold is safe to run side by side). */
export function studyFiguresFold(db: Db): ScheduledTask {
  return { name: 'home.fold-figures', every: 'tick', run: () => foldStudyFigures(db) };
}

/** Counts a study's figures (or every study's) again from the rows: for a repair, and for tests to compare. */
export async function recountStudyFigures(db: Db, studyId: number | null): Promise<void> {
  await db.execute(sql`select recount_study_figures(${studyId}::int)`);
}
