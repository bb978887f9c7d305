import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';

/** The study home's figures (GET /api/business/index): subjects, form progress, enrolment by month (in the study's zone). */
export async function studyIndex(ctx: AppContext, studyId: number, timeZone: string) {
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
  const [formsRow] = await queryRows<{ incomplete: number; submitted: number }>(
    ctx.db,
    sql`select count(*) filter (where state = 1)::int as incomplete, count(*) filter (where state = 2)::int as submitted
        from crf_data_records where study_id = ${studyId} and deleted_at is null`,
  );
  const [doubtRow] = await queryRows<{ open: number; replied: number; closed: number; records: number }>(
    ctx.db,
    sql`select count(*) filter (where option_type = 0)::int as open, count(*) filter (where option_type = 2)::int as replied,
          count(*) filter (where option_type = 1)::int as closed,
          count(distinct crf_data_record_id) filter (where option_type <> 1)::int as records
        from doubts where study_id = ${studyId}`,
  );
  const enrolment = await queryRows<{ month: string; count: number }>(
    ctx.db,
    sql`select to_char(s.created_at at time zone ${timeZone}, 'YYYY-MM') as month, count(*)::int as count
        from subjects s where s.study_id = ${studyId} and s.deleted_at is null
        group by 1 order by 1 desc limit 12`,
  );
  return {
    subjects: {
      total: Number(subjectsRow?.total ?? 0),
      active: Number(subjectsRow?.active ?? 0),
      completed: Number(subjectsRow?.completed ?? 0),
      withdrawn: Number(subjectsRow?.withdrawn ?? 0),
      thisMonth: Number(subjectsRow?.this_month ?? 0),
    },
    forms: {
      incomplete: Number(formsRow?.incomplete ?? 0),
      submitted: Number(formsRow?.submitted ?? 0),
      doubt: Number(doubtRow?.records ?? 0),
    },
    doubts: {
      open: Number(doubtRow?.open ?? 0),
      replied: Number(doubtRow?.replied ?? 0),
      closed: Number(doubtRow?.closed ?? 0),
    },
    enrolment: enrolment.reverse().map((e) => ({ month: e.month, count: Number(e.count) })),
  };
}
