import { sql, type SQL } from 'drizzle-orm';
import { FOLLOW_STATES as F } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';

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
 */
export async function studyIndex(
  ctx: AppContext,
  studyId: number,
  timeZone: string,
  access: Pick<StudyAccess, 'all' | 'permissions'> | null = null,
) {
  const formRule = viewableCrfs(sql.raw('crf_id'), access);
  const [subjectsRow] = await queryRows<{
    total: number;
    active: number;
    completed: number;
    withdrawn: number;
    this_month: number;
  }>(
    ctx.db,
    sql`select count(*)::int as total,
          count(*) filter (where r.state = 0)::int as active,
          count(*) filter (where r.state = 1)::int as completed,
          count(*) filter (where r.state = 2)::int as withdrawn,
          count(*) filter (where s.created_at >= date_trunc('month', now() at time zone ${timeZone}) at time zone ${timeZone})::int as this_month
        from subject_records r join subjects s on s.id = r.subject_id
        where r.study_id = ${studyId} and r.deleted_at is null`,
  );
  const [doubtRow] = await queryRows<{ open: number; replied: number; closed: number; records: number }>(
    ctx.db,
    sql`select count(*) filter (where option_type = 0)::int as open, count(*) filter (where option_type = 2)::int as replied,
          count(*) filter (where option_type = 1)::int as closed,
          count(distinct crf_data_record_id) filter (where option_type <> 1)::int as records
        from doubts where study_id = ${studyId} and ${formRule}`,
  );
  // Each month's enrolment and running total in one pass, of which the last twelve are shown: patients enrolled
  // before the axis count in the total.
  const months = await queryRows<{ month: string; count: number; total: number }>(
    ctx.db,
    sql`select month, n::int as count, (sum(n) over (order by month))::int as total from (
          select to_char(s.created_at at time zone ${timeZone}, 'YYYY-MM') as month, count(*) as n
          from subjects s where s.study_id = ${studyId} and s.deleted_at is null group by 1
        ) m order by month desc limit ${DASHBOARD_MONTHS}`,
  );
  const byCrf = await queryRows<{ crf_id: number; title: string; incomplete: number; submitted: number }>(
    ctx.db,
    sql`select c.id as crf_id, c.title,
          count(r.id) filter (where r.state = 1)::int as incomplete,
          count(r.id) filter (where r.state = 2)::int as submitted
        from crfs c
        left join crf_data_records r on r.crf_id = c.id and r.study_id = c.study_id and r.deleted_at is null
        where c.study_id = ${studyId} and ${viewableCrfs(sql.raw('c.id'), access)}
        group by c.id, c.title order by c.id`,
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
  // Follow-up compliance per planned visit (custom visits apart): done in the window, done late, missed
  // (window passed, not done) and lost; visits not yet due or still inside their window are not judged yet.
  const compliance = await queryRows<{
    visit: string;
    on_time: number;
    late: number;
    overdue: number;
    lost: number;
    pending: number;
  }>(
    ctx.db,
    sql`select coalesce(pv.visit_name, r.visit_name) as visit,
          count(*) filter (where r.state = ${F.DONE})::int as on_time,
          count(*) filter (where r.state = ${F.DONE_LATE})::int as late,
          count(*) filter (where r.state = ${F.OVERDUE})::int as overdue,
          count(*) filter (where r.state = ${F.LOST})::int as lost,
          count(*) filter (where r.state in (${F.NOT_DUE}, ${F.DUE}))::int as pending
        from follow_records r
        left join follow_plan_visits pv on pv.id = r.plan_visit_id
        where r.study_id = ${studyId} and r.state <> ${F.DELETED} and not r.custom
        group by 1 order by min(pv.plan_id), min(pv.sort), 1`,
  );
  const [target] = await queryRows<{ enrolment_target: number | null; enrolment_target_date: string | null }>(
    ctx.db,
    sql`select enrolment_target, enrolment_target_date from studies where study_id = ${studyId}`,
  );
  return {
    subjects: {
      total: Number(subjectsRow?.total ?? 0),
      active: Number(subjectsRow?.active ?? 0),
      completed: Number(subjectsRow?.completed ?? 0),
      withdrawn: Number(subjectsRow?.withdrawn ?? 0),
      thisMonth: Number(subjectsRow?.this_month ?? 0),
    },
    // Every record of the study belongs to one of its CRFs: the totals are the per-CRF counts summed.
    forms: {
      incomplete: byCrf.reduce((sum, c) => sum + Number(c.incomplete), 0),
      submitted: byCrf.reduce((sum, c) => sum + Number(c.submitted), 0),
      doubt: Number(doubtRow?.records ?? 0),
    },
    doubts: {
      open: Number(doubtRow?.open ?? 0),
      replied: Number(doubtRow?.replied ?? 0),
      closed: Number(doubtRow?.closed ?? 0),
    },
    enrolment: [...months].reverse().map((e) => ({ month: e.month, count: Number(e.count) })),
    /** Patients enrolled up to the end of each month (months with enrolment; the chart fills the gaps). */
    enrolmentCumulative: [...months].reverse().map((e) => ({ month: e.month, total: Number(e.total) })),
    /** The study's 入组目标 (项目设置): null when none is set, and the chart draws no target line. */
    enrolmentTarget: target?.enrolment_target === null || !target ? null : Number(target.enrolment_target),
    /** The date the target is to be reached by (YYYY-MM-DD), or null. */
    enrolmentTargetDate: target?.enrolment_target_date ?? null,
    formsByCrf: byCrf.map((c) => ({
      crfId: Number(c.crf_id),
      title: c.title,
      incomplete: Number(c.incomplete),
      submitted: Number(c.submitted),
    })),
    followCompliance: compliance.map((c) => ({
      visitName: c.visit,
      onTime: Number(c.on_time),
      late: Number(c.late),
      overdue: Number(c.overdue),
      lost: Number(c.lost),
      pending: Number(c.pending),
    })),
    queriesWeekly: weekly.map((w) => ({ week: w.week, opened: Number(w.opened), closed: Number(w.closed) })),
  };
}
