import { and, desc, eq, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { LOCK_MSG, LOCK_SCOPE_NAMES, lockMessage, lockNeedsTarget, type LockScope } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { deferToCommit, queryRows, type Db } from '../../db/client.js';
import {
  auditChainHeads,
  crfDataRecords,
  crfs,
  departments,
  studyLocks,
  studyPersonnel,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit, type AuditEntry } from '../audit/audit.service.js';
import { holdLocksExclusive } from './lock-gate.js';

/**
 * Locks (数据库锁定, docs/multi-centre.md): setting and lifting them, each with its reason and an audit row on the
 * study's hash chain, and the list of what is locked. The gate writers pass is lock-gate.ts.
 */

/** The refusals' words live in core (locks.ts), beside the request schema that uses one of them. */
export { LOCK_MSG };

export interface LockInput {
  scope: LockScope;
  targetId?: number | null;
  locked: boolean;
  reason: string;
}

/** What a lock's target is, as the audit row and the scope check need it. */
interface Target {
  siteId: number | null;
  subjectRecordId: number | null;
  crfDataRecordId: number | null;
  crfId: number | null;
  crfVersion: number | null;
}

const STUDY_TARGET: Target = {
  siteId: null,
  subjectRecordId: null,
  crfDataRecordId: null,
  crfId: null,
  crfVersion: null,
};

/**
 * The target, which must be of this study (404 otherwise) and, for a member scoped to sites, at one of their sites
 * (the same 404: another site's patient does not exist for them). A site is one of the study's when a member works
 * there or a patient of the study is there. A deleted casebook or record can still be unlocked, not locked.
 */
async function targetOf(tx: Db, access: StudyAccess, scope: LockScope, targetId: number, locking: boolean) {
  if (scope === 'study') return STUDY_TARGET;
  if (scope === 'site') {
    const [site] = await queryRows<{ dept_id: number }>(
      tx,
      sql`select d.dept_id from ${departments} d where d.dept_id = ${targetId} and (
        exists (select 1 from ${studyPersonnel} p where p.study_id = ${access.studyId}
          and (p.dept_id = d.dept_id or d.dept_id = any(coalesce(p.site_ids, '{}'))))
        or exists (select 1 from ${subjects} s where s.study_id = ${access.studyId} and s.dept_id = d.dept_id))`,
    );
    if (!site || !seesSite(access, targetId)) throw AppError.notFound('lock.site_not_found', LOCK_MSG.siteNotFound);
    return { ...STUDY_TARGET, siteId: targetId };
  }
  if (scope === 'subject') {
    const [casebook] = await tx
      .select({ id: subjectRecords.id, siteId: subjects.deptId, deletedAt: subjectRecords.deletedAt })
      .from(subjectRecords)
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(and(eq(subjectRecords.id, targetId), eq(subjectRecords.studyId, access.studyId)));
    if (!casebook || (locking && casebook.deletedAt) || !seesSite(access, casebook.siteId)) {
      throw AppError.notFound('subject.not_found', LOCK_MSG.subjectNotFound);
    }
    return { ...STUDY_TARGET, siteId: casebook.siteId, subjectRecordId: casebook.id };
  }
  const [record] = await tx
    .select({
      id: crfDataRecords.id,
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfDataRecords.crfId,
      crfVersion: crfDataRecords.crfVersion,
      deletedAt: crfDataRecords.deletedAt,
      siteId: subjects.deptId,
    })
    .from(crfDataRecords)
    .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(and(eq(crfDataRecords.id, targetId), eq(crfDataRecords.studyId, access.studyId)));
  if (!record || (locking && record.deletedAt) || !seesSite(access, record.siteId)) {
    throw AppError.notFound('crf_data.not_found', LOCK_MSG.recordNotFound);
  }
  return {
    siteId: record.siteId,
    subjectRecordId: record.subjectRecordId,
    crfDataRecordId: record.id,
    crfId: record.crfId,
    crfVersion: record.crfVersion,
  };
}

/**
 * Sets or lifts one lock (PUT /api/business/lock). The study's lock key is held exclusively first, so writers in
 * flight finish before and later ones see the lock (lock-gate.ts). A study lock records the chain head after its
 * own audit row: the head is the hash of the lock.set row, the point an auditor shows nothing followed
 * (`npm run audit:verify` prints it).
 */
export async function changeLock(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: LockInput) {
  const reason = input.reason.trim();
  if (!reason) throw AppError.badRequest('lock.reason_required', LOCK_MSG.reasonRequired);
  const { scope } = input;
  const targetId = lockNeedsTarget(scope) ? (input.targetId ?? 0) : 0;
  if (lockNeedsTarget(scope) && targetId <= 0) {
    throw AppError.badRequest('lock.target_required', LOCK_MSG.targetRequired);
  }
  // The whole study is not "at one's sites": only a member seeing every site locks or unlocks it.
  if (scope === 'study' && access.siteIds !== null) throw AppError.forbidden();
  const studyId = access.studyId;
  return ctx.db.transaction(async (tx) => {
    await holdLocksExclusive(tx, studyId);
    const target = await targetOf(tx, access, scope, targetId, input.locked);
    const [live] = await tx
      .select()
      .from(studyLocks)
      .where(
        and(
          eq(studyLocks.studyId, studyId),
          eq(studyLocks.scope, scope),
          eq(studyLocks.targetId, targetId),
          isNull(studyLocks.unlockedAt),
        ),
      )
      .for('update');
    const now = ctx.clock();
    const entry: AuditEntry = {
      studyId,
      subjectRecordId: target.subjectRecordId,
      crfDataRecordId: target.crfDataRecordId,
      crfId: target.crfId,
      crfVersion: target.crfVersion,
      action: input.locked ? 'lock.set' : 'lock.release',
      newValue: { scope, targetId },
      reason,
    };
    if (!input.locked) {
      if (!live) throw AppError.badRequest('lock.not_locked', LOCK_MSG.notLocked);
      await tx
        .update(studyLocks)
        .set({ unlockedBy: user.userId, unlockedAt: now, unlockReason: reason })
        .where(eq(studyLocks.id, live.id));
      await audit(tx, user, now, [entry]);
      return null;
    }
    if (live) throw AppError.badRequest('lock.already', LOCK_MSG.already);
    const [row] = await tx
      .insert(studyLocks)
      .values({ studyId, scope, targetId, reason, lockedBy: user.userId, lockedByName: user.name, lockedAt: now })
      .returning({ id: studyLocks.id });
    await audit(tx, user, now, [entry]);
    if (scope === 'study') {
      // The audit rows are written when the transaction's own work is done (audit-chain.ts): the head is read
      // after them, so it is the hash of this lock's own row.
      const recordHead = async () => {
        await tx
          .update(studyLocks)
          .set({
            chainHead: sql`(select ${auditChainHeads.hash} from ${auditChainHeads} where ${auditChainHeads.studyId} = ${studyId})`,
          })
          .where(eq(studyLocks.id, row!.id));
      };
      if (!deferToCommit(tx, recordHead)) await recordHead();
    }
    return { id: row!.id };
  });
}

const casebook = alias(subjectRecords, 'lock_casebook');
const unlocker = alias(users, 'lock_unlocker');

/** The sites whose locks a scoped member sees: their sites (with sub-departments) and the departments above theirs. */
async function visibleSites(db: Db, access: StudyAccess): Promise<Set<number> | null> {
  if (access.siteIds === null) return null;
  const own = access.ownSiteIds.length > 0 ? access.ownSiteIds : [0];
  const above = await queryRows<{ dept_id: number }>(
    db,
    sql`with recursive up as (
      select dept_id, parent_id from ${departments} where dept_id in (${sql.join(
        own.map((id) => sql`${id}`),
        sql`, `,
      )})
      union
      select d.dept_id, d.parent_id from ${departments} d join up on d.dept_id = up.parent_id
    ) select dept_id from up`,
  );
  return new Set([...access.siteIds, ...above.map((r) => Number(r.dept_id))]);
}

/**
 * GET /api/business/lock (live locks) and …/lock/history (every lock, lifted ones too), newest first, for any member
 * of the study: a member scoped to sites sees the study's locks, their sites' (and those above them) and their
 * patients'. Each names its target: the site, the patient's code, the form's title.
 */
export async function listLocks(ctx: AppContext, access: StudyAccess, history = false) {
  const rows = await ctx.db
    .select({
      lock: studyLocks,
      deptName: departments.deptName,
      subjectRecordId: casebook.id,
      identificationCode: subjects.identificationCode,
      patientSite: subjects.deptId,
      crfId: crfDataRecords.crfId,
      crfTitle: crfs.title,
      unlockedByName: unlocker.name,
    })
    .from(studyLocks)
    .leftJoin(departments, and(eq(studyLocks.scope, 'site'), eq(departments.deptId, studyLocks.targetId)))
    .leftJoin(crfDataRecords, and(eq(studyLocks.scope, 'record'), eq(crfDataRecords.id, studyLocks.targetId)))
    .leftJoin(
      casebook,
      or(
        and(eq(studyLocks.scope, 'subject'), eq(casebook.id, studyLocks.targetId)),
        and(eq(studyLocks.scope, 'record'), eq(casebook.id, crfDataRecords.subjectRecordId)),
      ),
    )
    .leftJoin(subjects, eq(subjects.id, casebook.subjectId))
    .leftJoin(crfs, eq(crfs.id, crfDataRecords.crfId))
    .leftJoin(unlocker, eq(unlocker.userId, studyLocks.unlockedBy))
    .where(and(eq(studyLocks.studyId, access.studyId), history ? undefined : isNull(studyLocks.unlockedAt)))
    .orderBy(desc(studyLocks.id));
  const sites = await visibleSites(ctx.db, access);
  const visible = rows.filter(({ lock, patientSite }) => {
    if (sites === null || lock.scope === 'study') return true;
    if (lock.scope === 'site') return sites.has(lock.targetId);
    return seesSite(access, patientSite);
  });
  return visible.map(({ lock, deptName, subjectRecordId, identificationCode, crfId, crfTitle, unlockedByName }) => {
    const scope = lock.scope as LockScope;
    const lockedAt = new Date(lock.lockedAt).toISOString();
    const targetName =
      scope === 'study' ? '' : scope === 'site' ? deptName : scope === 'subject' ? identificationCode : crfTitle;
    return {
      id: lock.id,
      scope,
      scopeName: LOCK_SCOPE_NAMES[scope],
      targetId: lock.targetId,
      targetName: targetName ?? '',
      subjectRecordId: subjectRecordId ?? null,
      identificationCode: identificationCode ?? null,
      crfId: crfId ?? null,
      lockedByName: lock.lockedByName,
      lockedAt,
      reason: lock.reason,
      /** The words a refused change shows, for the 🔒's tooltip. */
      message: lockMessage({ scope, lockedByName: lock.lockedByName, lockedAt, reason: lock.reason }, access.timeZone),
      ...(history && {
        chainHead: lock.chainHead,
        unlockedByName: unlockedByName ?? null,
        unlockedAt: lock.unlockedAt ? new Date(lock.unlockedAt).toISOString() : null,
        unlockReason: lock.unlockReason,
      }),
    };
  });
}
