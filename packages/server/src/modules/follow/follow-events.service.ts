import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { FOLLOW_STATE_NAMES, FOLLOW_STATES, todayString, type FollowState } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, followRecordCrfs, followRecords, studies } from '../../db/schema/index.js';
import { auditSystem } from '../audit/audit.service.js';
import { pushVisitCounts, type VisitChanges } from './follow-push.js';
import { scheduleSubject, triggerCrfOf } from './follow-schedule.service.js';
import { stateOf, studyZone } from './follow-shared.js';

// Reacting to clinical events (outbox subscriber) and the passing of days: visits scheduled, done, refreshed.

/** The outbox subscriber that schedules visits and marks them done (events in shared/domain-events.ts). */
export const FOLLOW_SCHEDULER = 'follow.schedule';

/**
 * Enrolment and saves of the trigger form schedule or reschedule the patient; a submitted form completes the
 * visit it was filled for once all of that visit's forms are submitted. Works from the current rows, so a
 * repeated delivery changes nothing twice.
 */
export function subscribeFollowUp(ctx: AppContext): void {
  ctx.events.subscribe(
    FOLLOW_SCHEDULER,
    ['subject.enrolled', 'record.saved', 'record.submitted'],
    async ({ event, occurredAt }) => {
      if (event.type === 'subject.enrolled') {
        const changed = await ctx.db.transaction((tx) =>
          scheduleSubject(tx, { kind: 'system' }, event.studyId, event.subjectId, ctx.clock()),
        );
        if (changed) await pushVisitCounts(ctx, event.studyId);
        return;
      }
      if (event.type !== 'record.saved' && event.type !== 'record.submitted') return;
      let changed = false;
      if ((await triggerCrfOf(ctx.db, event.studyId)) === event.crfId) {
        changed = Boolean(
          await ctx.db.transaction((tx) =>
            scheduleSubject(tx, { kind: 'system' }, event.studyId, event.subjectId, ctx.clock()),
          ),
        );
      }
      if (event.type === 'record.submitted') {
        const done = await completeVisitsOf(ctx, event.studyId, event.recordId, occurredAt);
        if (done.length) await pushVisitCounts(ctx, event.studyId, done);
      }
      // A rescheduled patient's visits may enter or leave anyone's window.
      if (changed) await pushVisitCounts(ctx, event.studyId);
    },
  );
}

/** Completes the visits a submitted form finishes; answers the people responsible for them. */
async function completeVisitsOf(
  ctx: AppContext,
  studyId: number,
  crfDataRecordId: number,
  occurredAt: Date,
): Promise<number[]> {
  const responsible = new Set<number>();
  await ctx.db.transaction(async (tx) => {
    const links = await tx
      .select({ followRecordId: followRecordCrfs.followRecordId })
      .from(followRecordCrfs)
      .where(and(eq(followRecordCrfs.studyId, studyId), eq(followRecordCrfs.crfDataRecordId, crfDataRecordId)));
    if (!links.length) return;
    const { timeZone } = await studyZone(tx, studyId);
    const doneOn = todayString(occurredAt, timeZone);
    await tx
      .update(followRecordCrfs)
      .set({ submittedAt: occurredAt })
      .where(and(eq(followRecordCrfs.crfDataRecordId, crfDataRecordId), isNull(followRecordCrfs.submittedAt)));
    for (const { followRecordId } of links) {
      const [visit] = await tx.select().from(followRecords).where(eq(followRecords.id, followRecordId)).for('update');
      if (!visit || visit.completedOn || visit.mark === 'deleted') continue;
      const forms = await tx
        .select({ state: crfDataRecords.state, deletedAt: crfDataRecords.deletedAt })
        .from(followRecordCrfs)
        .leftJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
        .where(eq(followRecordCrfs.followRecordId, followRecordId));
      if (!forms.every((f) => f.state === 2 && !f.deletedAt)) continue;
      const done = { ...visit, completedOn: doneOn };
      // A lost patient who comes back and is seen: the visit is done, the lost mark yields to the forms.
      await tx
        .update(followRecords)
        .set({
          completedOn: doneOn,
          mark: null,
          markReason: null,
          state: stateOf({ ...done, mark: null }, doneOn),
          updatedAt: ctx.clock(),
        })
        .where(eq(followRecords.id, followRecordId));
      if (visit.responsibleUserId !== null) responsible.add(visit.responsibleUserId);
      await auditSystem(tx, ctx.clock(), [
        {
          studyId,
          subjectRecordId: visit.subjectRecordId,
          action: 'follow.complete',
          itemName: visit.visitName,
          oldValue: { state: FOLLOW_STATE_NAMES[visit.state as FollowState] },
          newValue: { state: FOLLOW_STATE_NAMES[stateOf({ ...done, mark: null }, doneOn)], completedOn: doneOn },
        },
      ]);
    }
  });
  return [...responsible];
}

/**
 * Brings the stored states of pending visits in line with today in each study's own zone. Pure date
 * arithmetic in SQL over pending rows only (done, lost and deleted visits never change by time), so running
 * it again, late or twice, gives the same rows: it catches up on any day missed.
 */
export async function refreshStates(db: Db, now: Date, studyId?: number, changes?: VisitChanges): Promise<number> {
  const list = await db
    .select({ studyId: studies.studyId, timeZone: studies.timeZone })
    .from(studies)
    .where(studyId ? eq(studies.studyId, studyId) : isNull(studies.deletedAt));
  let changed = 0;
  for (const s of list) {
    const today = todayString(now, s.timeZone);
    const computed = sql`(case
        when ${followRecords.plannedDate}::date - ${followRecords.windowBefore} > ${today}::date then ${FOLLOW_STATES.NOT_DUE}
        when ${followRecords.plannedDate}::date + ${followRecords.windowAfter} >= ${today}::date then ${FOLLOW_STATES.DUE}
        else ${FOLLOW_STATES.OVERDUE} end)::smallint`;
    const rows = await db
      .update(followRecords)
      .set({ state: computed })
      .where(
        and(
          eq(followRecords.studyId, s.studyId),
          isNull(followRecords.mark),
          isNull(followRecords.completedOn),
          ne(followRecords.state, computed),
        ),
      )
      .returning({ id: followRecords.id, responsibleUserId: followRecords.responsibleUserId });
    changed += rows.length;
    for (const { responsibleUserId } of rows) {
      if (responsibleUserId === null || !changes) continue;
      let users = changes.get(s.studyId);
      if (!users) changes.set(s.studyId, (users = new Set()));
      users.add(responsibleUserId);
    }
  }
  return changed;
}

/**
 * Refreshes a study's states before a read; whoever's visits the day moved hears their new count at once
 * (the hourly task would tell them within the hour).
 */
export async function refreshAndPush(ctx: AppContext, studyId: number): Promise<void> {
  const changes: VisitChanges = new Map();
  if (await refreshStates(ctx.db, ctx.clock(), studyId, changes)) {
    for (const [id, users] of changes) await pushVisitCounts(ctx, id, users);
  }
}
