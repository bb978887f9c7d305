import { sql } from 'drizzle-orm';
import { FOLLOW_STATE_NAMES, FOLLOW_STATES as F, maskName, type FollowState } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { inCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { refreshAndPush } from './follow-events.service.js';

/** At most this many of the week's visits are listed by the overview (the counts are always whole). */
export const OVERVIEW_WEEK_LIST_MAX = 100;

/** A share of judged visits (0..1, two decimals), or null while none is judged. */
const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

const n = (v: unknown) => Number(v ?? 0);

/**
 * 随访概览 (GET /api/business/follow/overview): this week's visits, the visits waiting and overdue, each planned
 * visit's completion (on time, late, missed, lost) and each responsible person's load. Counted in SQL over the
 * study's live patients at the caller's sites and their visits (已删除 apart); "today" and the week (Monday to
 * Sunday) are the study zone's. A visit is judged once its window has passed or it is done or lost: on-time and
 * completion rates are shares of the judged visits, so visits not yet due never lower them.
 */
export async function followOverview(ctx: AppContext, access: StudyAccess) {
  const { studyId, timeZone } = access;
  const now = ctx.clock();
  // The stored states are brought to the study's today first, as the record list does.
  await refreshAndPush(ctx, studyId);
  // Every figure counts only the patients at the caller's sites (分中心), as the record list lists them.
  const site = inCallerSites(access, sql`s.dept_id`);
  const live = sql`r.study_id = ${studyId} and r.state <> ${F.DELETED} and s.deleted_at is null${
    site ? sql` and ${site}` : sql``
  }`;
  const week = sql`(select (${now.toISOString()}::timestamptz at time zone ${timeZone})::date as today,
      date_trunc('week', ${now.toISOString()}::timestamptz at time zone ${timeZone})::date as week_start)`;
  const inWeek = sql`r.planned_date::date between w.week_start and w.week_start + 6`;
  const pending = sql`r.state in (${F.NOT_DUE}, ${F.DUE}, ${F.OVERDUE})`;
  // A group of visits' completion: planned visits per plan visit and custom visits alike.
  const completion = sql`count(*)::int as total,
          count(*) filter (where r.state in (${F.NOT_DUE}, ${F.DUE}))::int as pending,
          count(*) filter (where r.state = ${F.DONE})::int as on_time,
          count(*) filter (where r.state = ${F.DONE_LATE})::int as late,
          count(*) filter (where r.state = ${F.OVERDUE})::int as missed,
          count(*) filter (where r.state = ${F.LOST})::int as lost`;

  const [summary] = await queryRows<Record<string, number | string>>(
    ctx.db,
    sql`select to_char(w.today, 'YYYY-MM-DD') as today, to_char(w.week_start, 'YYYY-MM-DD') as week_start,
          to_char(w.week_start + 6, 'YYYY-MM-DD') as week_end,
          count(r.id) filter (where ${inWeek})::int as week_total,
          count(r.id) filter (where ${inWeek} and ${pending})::int as week_pending,
          count(r.id) filter (where ${inWeek} and r.state in (${F.DONE}, ${F.DONE_LATE}))::int as week_done,
          count(r.id) filter (where r.state = ${F.NOT_DUE})::int as not_due,
          count(r.id) filter (where r.state = ${F.DUE})::int as due,
          count(r.id) filter (where r.state = ${F.OVERDUE})::int as overdue,
          count(r.id) filter (where r.state = ${F.DONE})::int as on_time,
          count(r.id) filter (where r.state = ${F.DONE_LATE})::int as late,
          count(r.id) filter (where r.state = ${F.LOST})::int as lost
        from ${week} w
        left join (follow_records r join subjects s on s.id = r.subject_id) on ${live}
        group by w.today, w.week_start`,
  );

  // One row per planned visit of each live plan (custom visits are not a plan's, so they count apart).
  const perVisit = await queryRows<Record<string, number | string | null>>(
    ctx.db,
    sql`select r.plan_id, r.plan_visit_id, max(p.plan_name) as plan_name,
          coalesce(max(pv.visit_name), max(r.visit_name)) as visit_name, ${completion}
        from follow_records r join subjects s on s.id = r.subject_id
        left join follow_plans p on p.id = r.plan_id
        left join follow_plan_visits pv on pv.id = r.plan_visit_id
        where ${live} and not r.custom
        group by r.plan_id, r.plan_visit_id
        order by r.plan_id, min(pv.sort), r.plan_visit_id`,
  );
  const [custom] = await queryRows<Record<string, number>>(
    ctx.db,
    sql`select ${completion}
        from follow_records r join subjects s on s.id = r.subject_id
        where ${live} and r.custom`,
  );

  const perResponsible = await queryRows<Record<string, number | string | null>>(
    ctx.db,
    sql`select r.responsible_user_id as user_id, max(u.name) as name,
          count(*) filter (where ${inWeek} and ${pending})::int as week_pending,
          count(*) filter (where r.state = ${F.DUE})::int as due,
          count(*) filter (where r.state = ${F.OVERDUE})::int as overdue,
          count(*) filter (where r.state in (${F.DONE}, ${F.DONE_LATE}))::int as done,
          count(*) filter (where r.state = ${F.LOST})::int as lost,
          count(*)::int as total
        from ${week} w
        join (follow_records r join subjects s on s.id = r.subject_id) on ${live}
        left join users u on u.user_id = r.responsible_user_id
        group by r.responsible_user_id
        order by count(*) filter (where r.state = ${F.OVERDUE}) desc, count(*) filter (where r.state = ${F.DUE}) desc,
          r.responsible_user_id nulls last`,
  );

  const weekVisits = await queryRows<Record<string, number | string | null | boolean>>(
    ctx.db,
    sql`select r.id, r.subject_id, r.subject_record_id, s.identification_code, s.subject_name, r.visit_name,
          r.planned_date, to_char(r.planned_date::date - r.window_before, 'YYYY-MM-DD') as window_start,
          to_char(r.planned_date::date + r.window_after, 'YYYY-MM-DD') as window_end, r.state, r.custom,
          r.responsible_user_id, u.name as responsible_name
        from ${week} w
        join (follow_records r join subjects s on s.id = r.subject_id) on ${live}
        left join users u on u.user_id = r.responsible_user_id
        where ${inWeek}
        order by r.planned_date, r.id
        limit ${OVERVIEW_WEEK_LIST_MAX}`,
  );

  const clear = seesIdentifiers(access);
  const s = summary!;
  const judged = (r: { onTime: number; late: number; missed: number; lost: number }) =>
    r.onTime + r.late + r.missed + r.lost;
  const withRates = <T extends { onTime: number; late: number; missed: number; lost: number }>(r: T) => ({
    ...r,
    judged: judged(r),
    onTimeRate: rate(r.onTime, judged(r)),
    completionRate: rate(r.onTime + r.late, judged(r)),
  });
  const visitRow = (r: Record<string, unknown>) =>
    withRates({
      total: n(r.total),
      pending: n(r.pending),
      onTime: n(r.on_time),
      late: n(r.late),
      missed: n(r.missed),
      lost: n(r.lost),
    });
  const totals = withRates({ onTime: n(s.on_time), late: n(s.late), missed: n(s.overdue), lost: n(s.lost) });

  return {
    today: String(s.today),
    weekStart: String(s.week_start),
    weekEnd: String(s.week_end),
    thisWeek: { total: n(s.week_total), pending: n(s.week_pending), done: n(s.week_done) },
    notDue: n(s.not_due),
    due: n(s.due),
    overdue: n(s.overdue),
    ...totals,
    visits: [
      ...perVisit.map((r) => ({
        planId: r.plan_id === null ? null : n(r.plan_id),
        planVisitId: r.plan_visit_id === null ? null : n(r.plan_visit_id),
        planName: String(r.plan_name ?? ''),
        visitName: String(r.visit_name ?? ''),
        custom: false,
        ...visitRow(r),
      })),
      ...(custom && n(custom.total) > 0
        ? [{ planId: null, planVisitId: null, planName: '', visitName: '', custom: true, ...visitRow(custom) }]
        : []),
    ],
    responsible: perResponsible.map((r) => ({
      userId: r.user_id === null ? null : n(r.user_id),
      name: r.name === null ? '' : String(r.name),
      weekPending: n(r.week_pending),
      due: n(r.due),
      overdue: n(r.overdue),
      done: n(r.done),
      lost: n(r.lost),
      total: n(r.total),
    })),
    weekVisits: weekVisits.map((r) => ({
      followRecordId: n(r.id),
      subjectId: n(r.subject_id),
      subjectRecordId: n(r.subject_record_id),
      identificationCode: String(r.identification_code),
      subjectName: clear ? String(r.subject_name) : maskName(String(r.subject_name)),
      visitName: String(r.visit_name),
      custom: Boolean(r.custom),
      plannedDate: String(r.planned_date),
      windowStart: String(r.window_start),
      windowEnd: String(r.window_end),
      state: n(r.state),
      stateName: FOLLOW_STATE_NAMES[n(r.state) as FollowState],
      responsibleUserId: r.responsible_user_id === null ? null : n(r.responsible_user_id),
      responsibleName: r.responsible_name === null ? '' : String(r.responsible_name),
    })),
  };
}
