import { sql, type SQL } from 'drizzle-orm';
import { FOLLOW_STATES as F, FORM_STATE } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { OPTION } from '../doubt/doubt.service.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { leftOutPatients } from '../../shared/test-patients.js';
import { missingMarkFigures } from './missing-figures.js';
import { readSiteFigures, readStudyFigures, STUDY_FIGURE, type StudyFigure } from './study-figures.js';

/** The dashboard's time axes: the last 12 months of enrolment and the last 12 weeks of queries. */
export const DASHBOARD_MONTHS = 12;
export const DASHBOARD_WEEKS = 12;

/** Only the forms (and their queries) of CRFs the caller may view count: the per-CRF view rule of the lists. */
function viewableCrfs(column: SQL, access: Pick<StudyAccess, 'all' | 'permissions'> | null): SQL {
  if (!access) return sql`true`;
  const viewable = viewableCrfIds(access as StudyAccess);
  if (viewable === null) return sql`true`;
  if (viewable.length === 0) return sql`false`;
  return sql`${column} in (${sql.join(
    viewable.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/**
 * The study home's figures (GET /api/business/index): subjects, form progress, enrolment by month (in the
 * study's zone), and the dashboard's series: cumulative enrolment, forms by state per CRF, queries opened and
 * closed per week. Form and query figures count only the CRFs the caller may view.
 *
 * A caller who sees only some sites (分中心) gets the figures of those sites' patients, counted live
 * (readSiteFigures); the kept per-study counts hold every site's and cannot be cut by site, so only an all-sites
 * caller reads them (the fast path, unchanged).
 *
 * In a production study the test patients (subjects.test, entered against drafts) and all that hangs on them are
 * left out of every figure; a study in 测试 counts every patient.
 */
export async function studyIndex(
  ctx: AppContext,
  studyId: number,
  timeZone: string,
  access: (Pick<StudyAccess, 'all' | 'permissions'> & Partial<Pick<StudyAccess, 'siteIds'>>) | null = null,
) {
  const viewable = access ? viewableCrfIds(access as StudyAccess) : null;
  const mayView = (crfId: number) => viewable === null || viewable.includes(crfId);
  const siteIds = access?.siteIds ?? null;
  const inSites = recordInCallerSites({ siteIds }, sql.raw('subject_record_id')) ?? sql`true`;
  // A production study's test patients count nowhere here (they stay in the patient list, tagged 测试).
  const leftOut = await leftOutPatients(ctx.db, studyId);
  const leaveOut = leftOut?.subjectIds ?? [];
  const notLeftOut =
    leftOut && leftOut.subjectRecordIds.length > 0
      ? sql`subject_record_id not in (${sql.join(
          leftOut.subjectRecordIds.map((id) => sql`${id}::int`),
          sql`, `,
        )})`
      : sql`true`;
  const formRule = sql`${viewableCrfs(sql.raw('crf_id'), access)} and ${inSites} and ${notLeftOut}`;
  const figures =
    siteIds === null
      ? await readStudyFigures(ctx.db, studyId, leaveOut)
      : await readSiteFigures(ctx.db, studyId, siteIds, leaveOut);
  const of = (figure: number) => figures.filter((f) => f.figure === figure);
  const sum = (rows: StudyFigure[]) => rows.reduce((total, f) => total + f.count, 0);

  const casebooks = of(STUDY_FIGURE.CASEBOOKS);
  const casebooksIn = (state: number) => sum(casebooks.filter((f) => f.state === state));
  // Each month's enrolment and its running total, of which the last twelve are shown: patients enrolled before
  // the axis count in the total.
  let enrolled = 0;
  const months = of(STUDY_FIGURE.ENROLMENT)
    .sort((a, b) => a.label.localeCompare(b.label))
    .map((f) => ({ month: f.label, count: f.count, total: (enrolled += f.count) }))
    .slice(-DASHBOARD_MONTHS);
  const thisMonth = monthIn(ctx.clock(), timeZone);
  const queries = of(STUDY_FIGURE.QUERIES).filter((f) => mayView(f.ref));
  const queriesIn = (state: number) => sum(queries.filter((f) => f.state === state));

  const crfList = await queryRows<{ crf_id: number; title: string }>(
    ctx.db,
    sql`select c.id as crf_id, c.title from crfs c
        where c.study_id = ${studyId} and ${viewableCrfs(sql.raw('c.id'), access)} order by c.id`,
  );
  const forms = of(STUDY_FIGURE.FORMS);
  const byCrf = crfList.map((c) => {
    const ofCrf = forms.filter((f) => f.ref === Number(c.crf_id));
    return {
      crfId: Number(c.crf_id),
      title: c.title,
      incomplete: sum(ofCrf.filter((f) => f.state === FORM_STATE.incomplete)),
      submitted: sum(ofCrf.filter((f) => f.state === FORM_STATE.submitted)),
    };
  });
  // Forms with a query still open or replied: read from the open queries only (an index on their state), so
  // it grows with the work outstanding, not with the study.
  const [withQueries] = await queryRows<{ records: number }>(
    ctx.db,
    sql`select count(distinct crf_data_record_id)::int as records from doubts
        where study_id = ${studyId} and option_type in (${OPTION.open}, ${OPTION.replied}) and ${formRule}`,
  );
  // Weeks start on Monday in the study's zone; the axis ends with the current week. Only queries opened or closed
  // since a day before its first Monday can fall on it (a zone is at most 14 hours off UTC).
  const weeksFrom = new Date(ctx.clock().getTime() - (DASHBOARD_WEEKS * 7 + 8) * 86_400_000).toISOString();
  const weekly = await queryRows<{ week: string; opened: number; closed: number }>(
    ctx.db,
    sql`with weeks as (
          select generate_series(
            date_trunc('week', (${ctx.clock().toISOString()}::timestamptz at time zone ${timeZone})) - ${`${DASHBOARD_WEEKS - 1} weeks`}::interval,
            date_trunc('week', (${ctx.clock().toISOString()}::timestamptz at time zone ${timeZone})),
            interval '1 week') as week
        ), q as (
          select date_trunc('week', created_at at time zone ${timeZone}) as opened_week,
            date_trunc('week', closed_at at time zone ${timeZone}) as closed_week
          from doubts
          where study_id = ${studyId} and ${formRule}
            and (created_at >= ${weeksFrom}::timestamptz or closed_at >= ${weeksFrom}::timestamptz)
        )
        select to_char(w.week, 'YYYY-MM-DD') as week,
          count(*) filter (where q.opened_week = w.week)::int as opened,
          count(*) filter (where q.closed_week = w.week)::int as closed
        from weeks w left join q on q.opened_week = w.week or q.closed_week = w.week
        group by w.week order by w.week`,
  );
  const [target] = await queryRows<{ enrolment_target: number | null; enrolment_target_date: string | null }>(
    ctx.db,
    sql`select enrolment_target, enrolment_target_date from studies where study_id = ${studyId}`,
  );
  return {
    subjects: {
      total: sum(casebooks),
      active: casebooksIn(0),
      completed: casebooksIn(1),
      withdrawn: casebooksIn(2),
      thisMonth: months.find((m) => m.month === thisMonth)?.count ?? 0,
    },
    // Every record of the study belongs to one of its CRFs: the totals are the per-CRF counts summed.
    forms: {
      incomplete: byCrf.reduce((total, c) => total + c.incomplete, 0),
      submitted: byCrf.reduce((total, c) => total + c.submitted, 0),
      doubt: Number(withQueries?.records ?? 0),
    },
    doubts: { open: queriesIn(OPTION.open), replied: queriesIn(OPTION.replied), closed: queriesIn(OPTION.closed) },
    enrolment: months.map((e) => ({ month: e.month, count: e.count })),
    /** Patients enrolled up to the end of each month (months with enrolment; the chart fills the gaps). */
    enrolmentCumulative: months.map((e) => ({ month: e.month, total: e.total })),
    /** The study's 入组目标 (项目设置): null when none is set, and the chart draws no target line. */
    enrolmentTarget: target?.enrolment_target === null || !target ? null : Number(target.enrolment_target),
    /** The date the target is to be reached by (YYYY-MM-DD), or null. */
    enrolmentTargetDate: target?.enrolment_target_date ?? null,
    formsByCrf: byCrf,
    followCompliance: followCompliance(of(STUDY_FIGURE.VISITS)),
    queriesWeekly: weekly.map((w) => ({ week: w.week, opened: Number(w.opened), closed: Number(w.closed) })),
    missingMarks: await missingMarkFigures(ctx, studyId, formRule),
  };
}

/** `YYYY-MM` of an instant in a zone. */
function monthIn(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' }).formatToParts(at);
  return `${parts.find((p) => p.type === 'year')!.value}-${parts.find((p) => p.type === 'month')!.value}`;
}

/**
 * Follow-up compliance per planned visit (custom visits apart), by the visit's current name: done in the window,
 * done late, missed (window passed, not done) and lost; visits not yet due or still inside their window are not
 * judged yet. In the plans' order.
 */
function followCompliance(visits: StudyFigure[]) {
  const byName = new Map<string, { planId: number; sort: number; counts: Map<number, number> }>();
  for (const v of visits) {
    if (v.state === F.DELETED) continue;
    const name = v.visitName ?? v.label;
    const entry = byName.get(name) ?? { planId: Infinity, sort: Infinity, counts: new Map<number, number>() };
    entry.planId = Math.min(entry.planId, v.planId ?? Infinity);
    entry.sort = Math.min(entry.sort, v.sort ?? Infinity);
    entry.counts.set(v.state, (entry.counts.get(v.state) ?? 0) + v.count);
    byName.set(name, entry);
  }
  return [...byName.entries()]
    .sort(([a, x], [b, y]) => x.planId - y.planId || x.sort - y.sort || (a < b ? -1 : a > b ? 1 : 0))
    .map(([visitName, { counts }]) => {
      const n = (state: number) => counts.get(state) ?? 0;
      return {
        visitName,
        onTime: n(F.DONE),
        late: n(F.DONE_LATE),
        overdue: n(F.OVERDUE),
        lost: n(F.LOST),
        pending: n(F.NOT_DUE) + n(F.DUE),
      };
    });
}
