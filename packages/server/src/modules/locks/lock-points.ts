import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { auditEvents, studyLocks, users } from '../../db/schema/index.js';
import { chainRows, rowHash, type ChainReport } from '../audit/audit-chain.js';

/**
 * The lock points of `npm run audit:verify` (docs/multi-centre.md): every study lock (数据库锁定), lifted or not,
 * with the chain head it recorded, so an auditor can show that nothing changed between the lock and the analysis.
 * The head is the hash of the lock's own lock.set row (lock.service.ts): the point is sound when that row is still
 * in the chain with that hash, its content still hashes to it, and the chain verified up to it; and the count of
 * patient-data rows written after it, up to the lock's release, should be 0.
 */

export type LockPointState = 'ok' | 'no-head' | 'missing' | 'altered' | 'broken';

export interface LockPoint {
  lockId: number;
  studyId: number;
  lockedAt: Date;
  lockedByName: string;
  reason: string;
  chainHead: string | null;
  /** The audit row whose hash is the recorded head. */
  rowId: number | null;
  state: LockPointState;
  /** Audit rows about patients (a casebook named) after the point, up to the release or to now, lock rows aside. */
  changesWhileLocked: number;
  unlockedAt: Date | null;
  unlockedByName: string | null;
  unlockReason: string | null;
}

const unlocker = alias(users, 'point_unlocker');

export async function lockPoints(db: Db, report: ChainReport): Promise<LockPoint[]> {
  const locks = await db
    .select({ lock: studyLocks, unlockedByName: unlocker.name })
    .from(studyLocks)
    .leftJoin(unlocker, eq(unlocker.userId, studyLocks.unlockedBy))
    .where(eq(studyLocks.scope, 'study'))
    .orderBy(asc(studyLocks.studyId), asc(studyLocks.id));
  const points: LockPoint[] = [];
  for (const { lock, unlockedByName } of locks) {
    const point: LockPoint = {
      lockId: lock.id,
      studyId: lock.studyId,
      lockedAt: new Date(lock.lockedAt),
      lockedByName: lock.lockedByName,
      reason: lock.reason,
      chainHead: lock.chainHead,
      rowId: null,
      state: 'no-head',
      changesWhileLocked: 0,
      unlockedAt: lock.unlockedAt ? new Date(lock.unlockedAt) : null,
      unlockedByName: unlockedByName ?? null,
      unlockReason: lock.unlockReason,
    };
    points.push(point);
    if (!lock.chainHead) continue;
    const [row] = await chainRows(
      db,
      and(eq(auditEvents.studyId, lock.studyId), eq(auditEvents.hash, lock.chainHead)),
      1,
    );
    if (!row) {
      point.state = 'missing';
      continue;
    }
    point.rowId = row.id;
    const broken = report.studies.find((s) => s.studyId === lock.studyId)?.broken;
    if (rowHash(row, row.prevHash) !== lock.chainHead) point.state = 'altered';
    else if (broken && broken.rowId !== null && broken.rowId <= row.id) point.state = 'broken';
    else point.state = 'ok';
    // Up to this lock's release row (the first study lock.release after the point), or to the chain's end.
    const [release] = await db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.studyId, lock.studyId),
          gt(auditEvents.id, row.id),
          eq(auditEvents.action, 'lock.release'),
          sql`${auditEvents.newValue}->>'scope' = 'study'`,
        ),
      )
      .orderBy(asc(auditEvents.id))
      .limit(1);
    const [{ n }] = (await db
      .select({ n: sql<number>`count(*)` })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.studyId, lock.studyId),
          gt(auditEvents.id, row.id),
          release ? sql`${auditEvents.id} < ${release.id}` : undefined,
          sql`${auditEvents.subjectRecordId} is not null`,
          sql`${auditEvents.action} not like 'lock.%'`,
        ),
      )) as [{ n: number }];
    point.changesWhileLocked = Number(n);
  }
  return points;
}

const STATE_TEXT: Record<LockPointState, string> = {
  ok: 'OK',
  'no-head': 'NO HEAD RECORDED',
  missing: 'MISSING: no row of the chain has this hash',
  altered: 'ALTERED: the row at this point no longer hashes to it',
  broken: 'BROKEN: the chain breaks before this point',
};

/** The lock points as the command prints them, after the chain report. */
export function lockPointsText(points: readonly LockPoint[]): string {
  if (points.length === 0) return 'lock points: none';
  const lines = ['lock points:'];
  for (const p of points) {
    const released = p.unlockedAt
      ? `released ${p.unlockedAt.toISOString()} by ${p.unlockedByName ?? '-'}: ${p.unlockReason ?? ''}`
      : 'still locked';
    lines.push(
      `study ${p.studyId} lock ${p.lockId}: locked ${p.lockedAt.toISOString()} by ${p.lockedByName}: ${p.reason}`,
      `  chain head ${p.chainHead ?? '-'} at row ${p.rowId ?? '-'}: ${STATE_TEXT[p.state]}`,
      `  ${p.changesWhileLocked} patient-data rows after the lock point; ${released}`,
    );
  }
  return lines.join('\n');
}

/** Whether every lock point holds (the command's exit code). */
export const lockPointsOk = (points: readonly LockPoint[]) =>
  points.every((p) => p.state === 'ok' && p.changesWhileLocked === 0);
