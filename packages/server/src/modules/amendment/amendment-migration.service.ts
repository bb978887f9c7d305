import { and, asc, eq, inArray, isNull, lt } from 'drizzle-orm';
import {
  CRF_MIGRATION_JOB_KIND,
  type AmendmentMigrateBody,
  type MigrationResult,
  type MigrationScope,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjectRecords, subjects, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { RecordedEvent } from '../../shared/domain-events.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { migrateBatch } from '../crf-data/form-write.js';
import { actorOf } from '../audit/audit.service.js';
import { JobFailure, jobSummary, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import { definitionOf } from '../study/crf-definitions.js';
import { migrationOptionsOf } from './amendment-impact.service.js';
import { crfAmendmentOf } from './amendment.service.js';

/**
 * The migration of an amendment's records to its version, as a background job ('crf-migration', progress through
 * the jobs API). Records move in small transactions (BATCH records each) through the one write path's migration
 * writer (crf-data/form-write-migration.ts), so that saves go on between them; a record already moved is passed
 * over, so the job can run again from the start after a restart (handlers must be re-runnable).
 */

export { CRF_MIGRATION_JOB_KIND };

/** Records per transaction: small enough that a save waits at most one batch for a record the job holds. */
export const MIGRATION_BATCH = 200;
/** How long a batch waits for the previous batch's reactions (system queries, follow-up, realtime). */
const REACTIONS_WAIT_MS = 10_000;

export interface MigrationJobPayload {
  studyId: number;
  amendmentId: number;
  reason?: string;
  scope: MigrationScope;
  /** The starter's sites (null: every site): the job moves only records the starter may see. */
  siteIds: number[] | null;
}

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits (at most REACTIONS_WAIT_MS) until the previous batch's reactions are delivered (system queries under the
 * new version, follow-up, realtime: an engine run and a transaction per record), so that the job never runs far
 * ahead of them and other requests keep being served. It looks every few milliseconds itself: the outbox's own
 * settled() waits for the dispatcher's pass, which does not end while saves keep committing events.
 */
async function reactionsOf(ctx: AppContext, last: RecordedEvent) {
  const deadline = Date.now() + REACTIONS_WAIT_MS;
  while (!(await ctx.events.settled(last, 0)) && Date.now() < deadline) await pause(20);
}

/** Checks the amendment and queues the job; answers the job in short. */
export async function startMigration(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  body: AmendmentMigrateBody,
) {
  const amendment = await crfAmendmentOf(ctx, access.studyId, body.amendmentId);
  await refuseOutOfScope(ctx, access, amendment.amendment.crfId, body.scope);
  const payload: MigrationJobPayload = {
    studyId: access.studyId,
    amendmentId: body.amendmentId,
    ...(body.reason ? { reason: body.reason } : {}),
    scope: body.scope,
    siteIds: access.siteIds ? [...access.siteIds] : null,
  };
  const job = await ctx.jobs.enqueue(CRF_MIGRATION_JOB_KIND, payload, {
    ownerId: user.userId,
    studyId: access.studyId,
  });
  return jobSummary(job);
}

/**
 * A scope naming a site or a record the starter may not see, or a record not of this form, is refused with what it
 * named: a migration never quietly moves less than it was asked to.
 */
async function refuseOutOfScope(ctx: AppContext, access: StudyAccess, crfId: number, scope: MigrationScope) {
  const sites = access.siteIds;
  if (scope.kind === 'sites' && sites) {
    const outside = scope.deptIds.filter((id) => !sites.includes(id));
    if (outside.length > 0) {
      throw new AppError(403, 'amendment.scope_outside', `所选中心不在您的数据范围内：${outside.join('、')}`);
    }
  }
  if (scope.kind === 'records') {
    const rows = await ctx.db
      .select({ id: crfDataRecords.id, deptId: subjects.deptId })
      .from(crfDataRecords)
      .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(
        and(
          eq(crfDataRecords.studyId, access.studyId),
          eq(crfDataRecords.crfId, crfId),
          isNull(crfDataRecords.deletedAt),
          inArray(crfDataRecords.id, scope.crfDataRecordIds.length > 0 ? scope.crfDataRecordIds : [-1]),
        ),
      );
    const seen = new Set(
      rows.filter((r) => !sites || (r.deptId !== null && sites.includes(r.deptId))).map((r) => r.id),
    );
    const refused = scope.crfDataRecordIds.filter((id) => !seen.has(id));
    if (refused.length > 0) {
      throw new AppError(400, 'amendment.records_outside', `以下记录不存在或不在您的数据范围内：${refused.join('、')}`);
    }
  }
}

/** The ids of the records the scope names that are still to move, in id order. */
async function recordsToMove(
  ctx: AppContext,
  payload: MigrationJobPayload,
  a: { crfId: number; toVersion: number },
): Promise<number[]> {
  const scope = payload.scope;
  const rows = await ctx.db
    .select({ id: crfDataRecords.id })
    .from(crfDataRecords)
    .innerJoin(
      subjectRecords,
      and(eq(subjectRecords.id, crfDataRecords.subjectRecordId), isNull(subjectRecords.deletedAt)),
    )
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(
      and(
        eq(crfDataRecords.studyId, payload.studyId),
        eq(crfDataRecords.crfId, a.crfId),
        isNull(crfDataRecords.deletedAt),
        lt(crfDataRecords.crfVersion, a.toVersion),
        scope.kind === 'sites' ? inArray(subjects.deptId, scope.deptIds) : undefined,
        scope.kind === 'records' ? inArray(crfDataRecords.id, scope.crfDataRecordIds) : undefined,
        payload.siteIds ? inArray(subjects.deptId, payload.siteIds.length > 0 ? payload.siteIds : [-1]) : undefined,
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  return rows.map((r) => r.id);
}

export async function runMigrationJob(
  ctx: AppContext,
  job: JobInfo<MigrationJobPayload>,
  tools: JobTools,
): Promise<MigrationResult> {
  const payload = job.payload;
  const { amendment: a } = await crfAmendmentOf(ctx, payload.studyId, payload.amendmentId).catch(() => {
    throw new JobFailure('方案修订不存在');
  });
  const [owner] = await ctx.db
    .select({ name: users.name, userName: users.userName })
    .from(users)
    .where(eq(users.userId, job.ownerId));
  if (!owner) throw new JobFailure('用户不存在');
  const actor = actorOf({ userId: job.ownerId, ...owner });
  const reason = payload.reason ? `${a.name}：${payload.reason}` : a.name;
  const to = await definitionOf(ctx.db, a.crfId, a.toVersion);
  const options = await migrationOptionsOf(ctx.db, ctx, a);
  const ids = await recordsToMove(ctx, payload, a);
  const result: MigrationResult = { moved: 0, changed: 0, skippedLocked: 0, failed: 0 };
  let reactions: RecordedEvent | undefined;
  await tools.progress(0, `共 ${ids.length} 条记录待迁移`);
  for (let at = 0; at < ids.length; at += MIGRATION_BATCH) {
    if (tools.signal.aborted) break;
    if (reactions) await reactionsOf(ctx, reactions);
    // Between transactions the saves waiting for the connection (one, on PGlite) go first.
    await breathe();
    const batch = ids.slice(at, at + MIGRATION_BATCH);
    try {
      const n = await ctx.db.transaction((tx) =>
        migrateBatch(tx, ctx, {
          studyId: payload.studyId,
          crfId: a.crfId,
          toVersion: a.toVersion,
          to,
          reason,
          actor,
          options,
          recordIds: batch,
        }),
      );
      result.moved += n.moved;
      result.changed += n.changed;
      result.skippedLocked += n.skippedLocked;
      reactions = n.lastEvent ?? reactions;
    } catch (err) {
      if (tools.signal.aborted) break;
      // A batch that cannot be written is counted and the job goes on: its records stay on their version.
      if (err instanceof Error) result.failed += batch.length;
      else throw err;
    }
    const done = Math.min(ids.length, at + batch.length);
    await tools.progress((done / ids.length) * 100, `已处理 ${done}/${ids.length}`);
  }
  return result;
}
