import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { followPlanVisits, type followPlans } from '../../db/schema/index.js';
import { visitColumns, type PlanVisitInput } from './follow-plan.service.js';

// The rows of the visits a follow-up plan's draft adds (issue 36). Test patients of a production study are
// scheduled from the draft, so a visit the draft adds needs a plan-visit row for their visits to point to before it
// is published. Such a row is marked draft (never read as the live plan's) and publishing adopts it.

/** A draft's visit: a kept visit carries the live visit's `id`; a new one its draft row's `draftVisitId`. */
export type DraftVisit = PlanVisitInput & { draftVisitId?: number | null };

/** What follow_plans.draft holds: the proposed visits as the plan PUT takes them, and who saved them when. */
export interface StoredDraft {
  visits: DraftVisit[];
  updatedBy: number;
  updatedAt: string;
}

type PlanRow = typeof followPlans.$inferSelect;

export const storedDraft = (plan: Pick<PlanRow, 'draft'>) => (plan.draft ?? null) as StoredDraft | null;

/** The visit as scheduling reads it (a live row, or a draft's visit under the row it will keep). */
export type ScheduleVisit = Pick<
  typeof followPlanVisits.$inferSelect,
  | 'id'
  | 'visitName'
  | 'offset'
  | 'unit'
  | 'windowBefore'
  | 'windowAfter'
  | 'repeatEvery'
  | 'repeatUntil'
  | 'responsibleUserId'
  | 'crfIds'
>;

/**
 * The draft's visits under the rows publishing keeps them in; null when a new visit has no row (a draft saved
 * before draft rows existed): its test patients then keep the live plan until the draft is saved again.
 */
export function draftScheduleVisits(draft: StoredDraft): ScheduleVisit[] | null {
  const visits: ScheduleVisit[] = [];
  for (const v of draft.visits) {
    const id = v.id ?? v.draftVisitId ?? null;
    if (id === null) return null;
    visits.push({ id, ...visitColumns(v) });
  }
  return visits;
}

async function openDraftRows(tx: Db, planId: number) {
  return tx
    .select({ id: followPlanVisits.id, visitName: followPlanVisits.visitName })
    .from(followPlanVisits)
    .where(
      and(eq(followPlanVisits.planId, planId), eq(followPlanVisits.draft, true), isNull(followPlanVisits.deletedAt)),
    );
}

/**
 * Gives each visit the draft adds its draft row: the row of the previous draft's visit of the same name (so a test
 * patient's visit stays on it when the draft is saved again), else a new one. Rows the draft no longer has are
 * retired. Answers the visits with their `draftVisitId`.
 */
export async function placeDraftVisits(
  tx: Db,
  plan: Pick<PlanRow, 'id' | 'studyId'>,
  visits: PlanVisitInput[],
  now: Date,
): Promise<DraftVisit[]> {
  const open = await openDraftRows(tx, plan.id);
  const used = new Set<number>();
  const placed: DraftVisit[] = [];
  for (const [sort, v] of visits.entries()) {
    if (v.id) {
      placed.push({ ...v, draftVisitId: null });
      continue;
    }
    const reuse = open.find((r) => !used.has(r.id) && r.visitName === v.visitName.trim());
    let id: number;
    if (reuse) {
      await tx
        .update(followPlanVisits)
        .set({ sort, ...visitColumns(v), updatedAt: now })
        .where(eq(followPlanVisits.id, reuse.id));
      id = reuse.id;
    } else {
      const [row] = await tx
        .insert(followPlanVisits)
        .values({
          studyId: plan.studyId,
          planId: plan.id,
          sort,
          ...visitColumns(v),
          draft: true,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: followPlanVisits.id });
      id = row!.id;
    }
    used.add(id);
    placed.push({ ...v, id: null, draftVisitId: id });
  }
  await retireDraftRows(
    tx,
    open.filter((r) => !used.has(r.id)).map((r) => r.id),
    now,
  );
  return placed;
}

/** Retires draft rows (kept, like any removed plan visit, for the test visits that name them). */
export async function retireDraftRows(tx: Db, ids: number[], now: Date) {
  if (!ids.length) return;
  await tx.update(followPlanVisits).set({ deletedAt: now, updatedAt: now }).where(inArray(followPlanVisits.id, ids));
}

/** Every open draft row of the plan, retired (the draft is discarded). */
export async function retireAllDraftRows(tx: Db, planId: number, now: Date) {
  await retireDraftRows(
    tx,
    (await openDraftRows(tx, planId)).map((r) => r.id),
    now,
  );
}
