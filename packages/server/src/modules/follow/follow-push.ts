import { sql } from 'drizzle-orm';
import { FOLLOW_STATES as F } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';

/** Per study, the responsible users whose visits changed state (collected by the state refresh). */
export type VisitChanges = Map<number, Set<number>>;

/**
 * Pushes the top bar's follow count (`counts` `{ studyId, visits }` on personsignalhub, SHELL-22) to the people
 * responsible for visits of a study: the visits 待随访 or 已超窗 each is responsible for, counted as
 * GET /api/business/follow/records?state=1,2&responsibleUserId counts them. Without `only`, everyone responsible
 * for a visit of the study hears (a change of a plan or a patient may move several people's visits). Sent after
 * the change committed. A count that cannot be read (the database gone after the commit) is not pushed and does
 * not fail the change that was made: the top bar reads the count again on its slow poll and on reconnecting.
 */
export async function pushVisitCounts(ctx: AppContext, studyId: number, only?: Iterable<number>): Promise<void> {
  const users = only ? [...only] : null;
  if (users && users.length === 0) return;
  try {
    const rows = await queryRows<{ user_id: number; visits: number }>(
      ctx.db,
      sql`select r.responsible_user_id as user_id,
            count(*) filter (where r.state in (${F.DUE}, ${F.OVERDUE}) and s.deleted_at is null)::int as visits
          from follow_records r join subjects s on s.id = r.subject_id
          where r.study_id = ${studyId} and r.responsible_user_id is not null
            ${
              users
                ? sql`and r.responsible_user_id in (${sql.join(
                    users.map((u) => sql`${u}`),
                    sql`, `,
                  )})`
                : sql``
            }
          group by r.responsible_user_id`,
    );
    const counts = new Map(rows.map((r) => [Number(r.user_id), Number(r.visits)]));
    for (const userId of users ?? counts.keys()) {
      ctx.realtime.toUser(userId, 'counts', { studyId, visits: counts.get(userId) ?? 0 });
    }
  } catch {
    // See above: the poll is the safety net.
  }
}

/** Pushes what a state refresh changed, study by study. */
export async function pushVisitChanges(ctx: AppContext, changes: VisitChanges): Promise<void> {
  for (const [studyId, users] of changes) await pushVisitCounts(ctx, studyId, users);
}
