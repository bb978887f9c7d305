import { eq } from 'drizzle-orm';
import {
  FOLLOW_STATE_NAMES,
  FOLLOW_STATES,
  followStateOf,
  todayString,
  type FollowMark,
  type FollowState,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { followRecords, studies } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { audit, auditSystem, type AuditEntry } from '../audit/audit.service.js';

// What the follow-up services share: who acts, the study's zone, a visit's state and marking visits lost or deleted.

export type Actor = { kind: 'user'; user: CurrentUser } | { kind: 'system' };
export type FollowRecordRow = typeof followRecords.$inferSelect;

export async function writeAudit(tx: Db, actor: Actor, at: Date, entries: AuditEntry[]) {
  if (actor.kind === 'user') await audit(tx, actor.user, at, entries);
  else await auditSystem(tx, at, entries);
}

export async function studyZone(db: Db, studyId: number) {
  const [row] = await db
    .select({ timeZone: studies.timeZone, followTriggers: studies.followTriggers })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  if (!row) throw AppError.notFound('study.not_found', '项目不存在');
  return row;
}

export const stateOf = (
  r: Pick<FollowRecordRow, 'plannedDate' | 'windowBefore' | 'windowAfter' | 'completedOn' | 'mark'>,
  today: string,
) => followStateOf({ ...r, mark: r.mark as FollowMark }, today);

export async function markRecords(
  tx: Db,
  actor: Actor,
  now: Date,
  rows: FollowRecordRow[],
  mark: 'lost' | 'deleted',
  reason: string,
  action: 'follow.lost' | 'follow.delete',
  today?: string,
) {
  if (!rows.length) return;
  const day = today ?? todayString(now, (await studyZone(tx, rows[0]!.studyId)).timeZone);
  for (const row of rows) {
    await tx
      .update(followRecords)
      .set({ mark, markReason: reason, state: stateOf({ ...row, mark }, day), updatedAt: now })
      .where(eq(followRecords.id, row.id));
  }
  await writeAudit(
    tx,
    actor,
    now,
    rows.map((row) => ({
      studyId: row.studyId,
      subjectRecordId: row.subjectRecordId,
      action,
      itemName: row.visitName,
      oldValue: { state: FOLLOW_STATE_NAMES[row.state as FollowState] },
      newValue: { state: FOLLOW_STATE_NAMES[mark === 'lost' ? FOLLOW_STATES.LOST : FOLLOW_STATES.DELETED] },
      reason,
    })),
  );
}
