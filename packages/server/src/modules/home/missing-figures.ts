import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { getMissingCodes } from '../study/missing-codes.service.js';

/**
 * 缺失原因 (issue 37) on the study home: items marked missing in the live records, per code. Counted live from the
 * records that carry a mark (`formRule`: the forms, sites and patients the home's other form figures count), not
 * kept as a study_figures counter: that would need the counting triggers of migration 0033 to learn the marks.
 * Every study code is listed (0 when unused), then any code since removed that records still carry.
 */
export async function missingMarkFigures(ctx: AppContext, studyId: number, formRule: SQL) {
  const rows = await queryRows<{ code: string; n: number }>(
    ctx.db,
    sql`select m.key as code, count(*)::int as n
        from crf_data_records r cross join lateral jsonb_each_text(r.missing) as m(item, key)
        where r.study_id = ${studyId} and r.deleted_at is null and r.missing <> '{}'::jsonb and ${formRule}
        group by m.key`,
  );
  const counted = new Map(rows.map((r) => [r.code, Number(r.n)]));
  const codes = await getMissingCodes(ctx, studyId);
  const byCode = [
    ...codes.map((c) => ({ code: c.code, label: c.label, count: counted.get(c.code) ?? 0 })),
    ...[...counted]
      .filter(([code]) => !codes.some((c) => c.code === code))
      .map(([code, count]) => ({ code, label: code, count })),
  ];
  return { total: byCode.reduce((total, c) => total + c.count, 0), byCode };
}
