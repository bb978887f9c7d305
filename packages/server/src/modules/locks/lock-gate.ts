import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { LOCK_SCOPE_NAMES, lockMessage, STUDY_FROZEN_MSG, STUDY_STATUS_FINISHED, type LockScope } from '@ecrf/core';
import { queryRows, type Db } from '../../db/client.js';
import { queryRowsNamed, reusableSelect } from '../../db/reusable-query.js';
import { crfDataRecords, studies, studyLocks, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';

/**
 * The one gate every writer of patient data passes inside its transaction (docs/multi-centre.md, locks): a
 * study lock (数据库锁定), a lock of the patient's site or of a department above it (中心锁定), of the casebook
 * (病例锁定) or of the form record (表单锁定), and a study set to 已结束, refuse the change with 423 and the lock
 * named: who and when. Reads never pass here.
 *
 * Ordering with the lock's own transaction: a writer takes the study's lock key shared, the setting or lifting
 * of a lock takes it exclusively (lock.service.ts). A writer that got in first commits before the lock is set (its
 * audit rows come before the lock's row on the chain); one that comes later waits for the lock to commit and then
 * reads it, in a statement of its own, so its snapshot includes the lock. Two statements in the common case.
 */

/** The advisory lock class of "locks of this study are changing" (the object is the study id). */
export const LOCK_KEY_CLASS = 0x4c4b;

/** What a writer is about to change: its study, and the patient's casebook, form record or site when it has one. */
export interface LockTarget {
  /** A casebook (subject record). */
  subjectRecordId?: number | null;
  /** A form record; its casebook is found when not given. */
  crfDataRecordId?: number | null;
  /** A site (department) the change lands in: a new patient's, a site move's destination. */
  siteId?: number | null;
  /** The change takes the whole casebook (deleting or restoring it): a lock of any of its forms refuses it too. */
  wholeCasebook?: boolean;
}

/** A live lock as the gate reads it. */
interface LiveLock {
  id: number;
  scope: string;
  targetId: number;
  lockedByName: string;
  lockedAt: Date | string;
  reason: string;
}

/** The refusal naming a lock: 423, its words, and the lock itself for the page's 🔒. */
export function lockedError(lock: LiveLock, timeZone: string): AppError {
  const scope = lock.scope as LockScope;
  const lockedAt = new Date(lock.lockedAt).toISOString();
  return new AppError(
    423,
    'lock.locked',
    lockMessage({ scope, lockedByName: lock.lockedByName, lockedAt, reason: lock.reason }, timeZone),
    {
      lock: {
        id: lock.id,
        scope,
        scopeName: LOCK_SCOPE_NAMES[scope],
        targetId: lock.targetId,
        lockedByName: lock.lockedByName,
        lockedAt,
        reason: lock.reason,
      },
    },
  );
}

export const frozenError = () => new AppError(423, 'study.frozen', STUDY_FROZEN_MSG);

/** The study's status and zone with its live locks: one row with a null lock when there is none. */
const studyAndLocks = reusableSelect('lock_gate_read', (db) =>
  db
    .select({
      status: studies.status,
      timeZone: studies.timeZone,
      lock: {
        id: studyLocks.id,
        scope: studyLocks.scope,
        targetId: studyLocks.targetId,
        lockedByName: studyLocks.lockedByName,
        lockedAt: studyLocks.lockedAt,
        reason: studyLocks.reason,
      },
    })
    .from(studies)
    .leftJoin(studyLocks, and(eq(studyLocks.studyId, studies.studyId), isNull(studyLocks.unlockedAt)))
    .where(eq(studies.studyId, sql.placeholder('studyId'))),
);

/** Waits while the study's locks are being changed (and keeps them from changing until this transaction ends). */
export async function holdLocksShared(tx: Db, studyId: number) {
  await queryRowsNamed(
    tx,
    'lock_gate_hold',
    sql`select pg_advisory_xact_lock_shared(${LOCK_KEY_CLASS}::int, ${studyId}::int)`,
  );
}

/** Keeps every writer of the study out until this transaction ends (setting or lifting a lock). */
export async function holdLocksExclusive(tx: Db, studyId: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_KEY_CLASS}::int, ${studyId}::int)`);
}

type Refusal = (target: LockTarget) => AppError | null;
const none: Refusal = () => null;

/** The narrower the scope, the later it is named: a site lock is named before the casebook's, that before the form's. */
const SCOPE_ORDER: Record<string, number> = { study: 0, site: 1, subject: 2, record: 3 };

/**
 * The gate for many targets at once (the data import's batch): answers each target's refusal, or null. A finished
 * study refuses first, then a study lock; only when the study holds narrower locks are the targets' casebooks and
 * sites read (two or three more small reads).
 */
export async function lockRefusals(tx: Db, studyId: number, targets: readonly LockTarget[]): Promise<Refusal> {
  await holdLocksShared(tx, studyId);
  const rows = (await studyAndLocks(tx, { studyId })) as Array<{
    status: number;
    timeZone: string;
    lock: LiveLock | null;
  }>;
  const study = rows[0];
  if (!study) return none;
  if (study.status === STUDY_STATUS_FINISHED) {
    const frozen = frozenError();
    return () => frozen;
  }
  const locks = rows
    .flatMap((r) => (r.lock ? [r.lock] : []))
    .sort((a, b) => SCOPE_ORDER[a.scope]! - SCOPE_ORDER[b.scope]!);
  if (locks.length === 0) return none;
  const errorOf = (lock: LiveLock) => lockedError(lock, study.timeZone);
  const studyLock = locks.find((l) => l.scope === 'study');
  if (studyLock) {
    const refusal = errorOf(studyLock);
    return () => refusal;
  }

  const byRecord = new Map(locks.filter((l) => l.scope === 'record').map((l) => [l.targetId, l] as const));
  const byCasebook = new Map(locks.filter((l) => l.scope === 'subject').map((l) => [l.targetId, l] as const));
  const siteLocks = locks.filter((l) => l.scope === 'site');

  // The casebook of each form record named without one.
  const recordIds = [...new Set(targets.flatMap((t) => (t.crfDataRecordId ? [t.crfDataRecordId] : [])))];
  const casebookOfRecord = new Map<number, number>();
  const whole = targets.some((t) => t.wholeCasebook);
  if (whole) recordIds.push(...byRecord.keys());
  if (recordIds.length > 0 && (byCasebook.size > 0 || siteLocks.length > 0 || whole)) {
    const found = await tx
      .select({ id: crfDataRecords.id, subjectRecordId: crfDataRecords.subjectRecordId })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.studyId, studyId), inArray(crfDataRecords.id, recordIds)));
    for (const r of found) casebookOfRecord.set(r.id, r.subjectRecordId);
  }
  const casebookOf = (t: LockTarget) =>
    t.subjectRecordId ?? (t.crfDataRecordId ? casebookOfRecord.get(t.crfDataRecordId) : undefined) ?? null;

  // Each locked site covers its sub-departments, as a member's site does (study-access.ts).
  const siteLockOf = new Map<number, LiveLock>();
  const siteOfCasebook = new Map<number, number | null>();
  if (siteLocks.length > 0) {
    const tree = await queryRows<{ dept_id: number; root: number }>(
      tx,
      sql`with recursive tree as (
        select dept_id, dept_id as root from departments
        where dept_id in (${sql.join(
          siteLocks.map((l) => sql`${l.targetId}`),
          sql`, `,
        )})
        union
        select d.dept_id, t.root from departments d join tree t on d.parent_id = t.dept_id
      ) select dept_id, root from tree`,
    );
    const lockOfRoot = new Map(siteLocks.map((l) => [l.targetId, l] as const));
    for (const r of tree) {
      const lock = lockOfRoot.get(Number(r.root));
      if (lock && !siteLockOf.has(Number(r.dept_id))) siteLockOf.set(Number(r.dept_id), lock);
    }
    const casebooks = [...new Set(targets.map(casebookOf).filter((id): id is number => id !== null))];
    if (casebooks.length > 0) {
      const sites = await tx
        .select({ id: subjectRecords.id, siteId: subjects.deptId })
        .from(subjectRecords)
        .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
        .where(and(eq(subjectRecords.studyId, studyId), inArray(subjectRecords.id, casebooks)));
      for (const s of sites) siteOfCasebook.set(s.id, s.siteId);
    }
  }

  return (target) => {
    const casebook = casebookOf(target);
    const sites = [target.siteId, casebook !== null ? siteOfCasebook.get(casebook) : null];
    for (const site of sites) {
      const lock = site !== null && site !== undefined ? siteLockOf.get(site) : undefined;
      if (lock) return errorOf(lock);
    }
    const onCasebook = casebook !== null ? byCasebook.get(casebook) : undefined;
    if (onCasebook) return errorOf(onCasebook);
    const onRecord = target.crfDataRecordId ? byRecord.get(target.crfDataRecordId) : undefined;
    if (onRecord) return errorOf(onRecord);
    if (target.wholeCasebook && casebook !== null) {
      const anyForm = [...byRecord.values()].find((l) => casebookOfRecord.get(l.targetId) === casebook);
      if (anyForm) return errorOf(anyForm);
    }
    return null;
  };
}

/**
 * Refuses (423) a change to locked data or to a finished study, inside the writer's transaction and before it
 * writes. Every writer of patient data calls it: form save, submit and deletion, SDV, patient-reported forms, the
 * data import, patients' enrolment, edits, states, deletion, restoring and signing, randomization, follow-up
 * visits, queries and medical records.
 */
export async function assertWritable(tx: Db, target: LockTarget & { studyId: number }): Promise<void> {
  const refusal = (await lockRefusals(tx, target.studyId, [target]))(target);
  if (refusal) throw refusal;
}
