import { and, asc, count, eq, gte, inArray, isNull, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import {
  FOLLOW_STATE_NAMES,
  FOLLOW_STATES,
  followStateOf,
  maskName,
  todayString,
  windowOf,
  type FollowState,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  followPlans,
  followRecordCrfs,
  followRecords,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { refreshAndPush } from './follow-events.service.js';
import { checkPlanInput } from './follow-plan.service.js';
import { pushVisitCounts } from './follow-push.js';
import { markRecords, stateOf, studyZone, type FollowRecordRow } from './follow-shared.js';

// Patient visits (随访记录): listed, marked lost or restored, moved, deleted, added by hand; the forms of a visit.

export interface RecordFilter {
  studyId: number;
  state?: number[];
  startDate?: string;
  endDate?: string;
  responsibleUserId?: number;
  subjectId?: number;
  subjectRecordId?: number;
  keyword?: string;
  planId?: number;
}

/** The forms of the given visits, in the order they were attached, each with its form record's state (or null). */
function formsOfVisits(db: Db, followRecordIds: number[]) {
  return db
    .select({
      id: followRecordCrfs.id,
      followRecordId: followRecordCrfs.followRecordId,
      crfId: followRecordCrfs.crfId,
      title: crfs.title,
      crfDataRecordId: followRecordCrfs.crfDataRecordId,
      state: crfDataRecords.state,
    })
    .from(followRecordCrfs)
    .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
    .leftJoin(crfDataRecords, eq(crfDataRecords.id, followRecordCrfs.crfDataRecordId))
    .where(inArray(followRecordCrfs.followRecordId, followRecordIds))
    .orderBy(asc(followRecordCrfs.id));
}

async function presentRecords(
  ctx: AppContext,
  access: StudyAccess,
  rows: {
    record: FollowRecordRow;
    identificationCode: string;
    subjectName: string;
    planName: string | null;
    responsibleName: string | null;
  }[],
) {
  const ids = rows.map((r) => r.record.id);
  const forms = ids.length ? await formsOfVisits(ctx.db, ids) : [];
  const clear = seesIdentifiers(access);
  return rows.map(({ record: r, ...joined }) => {
    const { start, end } = windowOf(r);
    return {
      followRecordId: r.id,
      studyId: r.studyId,
      subjectId: r.subjectId,
      subjectRecordId: r.subjectRecordId,
      identificationCode: joined.identificationCode,
      subjectName: clear ? joined.subjectName : maskName(joined.subjectName),
      planId: r.planId,
      planName: joined.planName ?? '',
      visitName: r.visitName,
      plannedDate: r.plannedDate,
      windowStart: start,
      windowEnd: end,
      windowBefore: r.windowBefore,
      windowAfter: r.windowAfter,
      state: r.state,
      stateName: FOLLOW_STATE_NAMES[r.state as FollowState],
      markReason: r.markReason,
      completedOn: r.completedOn,
      dateModified: r.dateModified,
      custom: r.custom,
      responsibleUserId: r.responsibleUserId,
      responsibleName: joined.responsibleName ?? '',
      crfs: forms
        .filter((f) => f.followRecordId === r.id)
        .map((f) => ({
          followRecordCrfId: f.id,
          crfId: f.crfId,
          title: f.title,
          crfDataRecordId: f.crfDataRecordId,
          submitted: f.state === 2,
        })),
    };
  });
}

const recordSelect = {
  record: followRecords,
  identificationCode: subjects.identificationCode,
  subjectName: subjects.subjectName,
  planName: followPlans.planName,
  responsibleName: users.name,
};

function recordQuery(db: Db) {
  return db
    .select(recordSelect)
    .from(followRecords)
    .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
    .leftJoin(followPlans, eq(followPlans.id, followRecords.planId))
    .leftJoin(users, eq(users.userId, followRecords.responsibleUserId));
}

export async function listRecords(ctx: AppContext, access: StudyAccess, filter: RecordFilter, page: PageRequest) {
  await refreshAndPush(ctx, filter.studyId);
  const keyword = filter.keyword?.trim().replace(/[\\%_]/g, '\\$&');
  const conditions: (SQL | undefined)[] = [
    eq(followRecords.studyId, filter.studyId),
    isNull(subjects.deletedAt),
    // Only the visits of patients at the caller's sites (分中心).
    inCallerSites(access, subjects.deptId),
    filter.state?.length ? inArray(followRecords.state, filter.state) : ne(followRecords.state, FOLLOW_STATES.DELETED),
    filter.startDate ? gte(followRecords.plannedDate, filter.startDate) : undefined,
    filter.endDate ? lte(followRecords.plannedDate, filter.endDate) : undefined,
    filter.responsibleUserId ? eq(followRecords.responsibleUserId, filter.responsibleUserId) : undefined,
    filter.subjectId ? eq(followRecords.subjectId, filter.subjectId) : undefined,
    filter.subjectRecordId ? eq(followRecords.subjectRecordId, filter.subjectRecordId) : undefined,
    filter.planId ? eq(followRecords.planId, filter.planId) : undefined,
    keyword
      ? or(
          sql`${subjects.identificationCode} ilike ${`%${keyword}%`}`,
          seesIdentifiers(access) ? sql`${subjects.subjectName} ilike ${`%${keyword}%`}` : undefined,
        )
      : undefined,
  ];
  const where = and(...conditions);
  const { list: rows, total } = await pagedQuery(
    ctx.db
      .select({ total: count() })
      .from(followRecords)
      .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
      .where(where),
    recordQuery(ctx.db).where(where).orderBy(asc(followRecords.plannedDate), asc(followRecords.id)).$dynamic(),
    page,
  );
  return { list: await presentRecords(ctx, access, rows), total };
}

/** One patient's visits, every state included (the CRF page's sidebar and the patient's schedule). */
export async function subjectFollows(ctx: AppContext, access: StudyAccess, subjectRecordId: number) {
  const [rec] = await ctx.db
    .select({ studyId: subjectRecords.studyId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  if (!rec) throw AppError.notFound('subject.not_found', '患者不存在');
  await refreshAndPush(ctx, rec.studyId);
  const rows = await recordQuery(ctx.db)
    .where(eq(followRecords.subjectRecordId, subjectRecordId))
    .orderBy(asc(followRecords.plannedDate), asc(followRecords.id));
  return presentRecords(ctx, access, rows);
}

async function lockedRecord(tx: Db, followRecordId: number) {
  const [row] = await tx.select().from(followRecords).where(eq(followRecords.id, followRecordId)).for('update');
  if (!row) throw AppError.notFound('follow.record_not_found', '随访记录不存在');
  // Every change a person makes to one visit comes through here: a locked patient's visits stay as they are.
  await assertWritable(tx, { studyId: row.studyId, subjectRecordId: row.subjectRecordId });
  return row;
}

/** Marks a visit lost (失访, with a reason) or restores a lost or deleted one to what its dates and forms say. */
export async function setRecordStatus(
  ctx: AppContext,
  user: CurrentUser,
  input: { followRecordId: number; action: 'lost' | 'restore'; reason: string },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, input.followRecordId);
    const { timeZone } = await studyZone(tx, row.studyId);
    const today = todayString(now, timeZone);
    if (input.action === 'lost') {
      if (row.mark) throw AppError.badRequest('follow.marked', '该随访已失访或已删除');
      if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能标记失访');
      await markRecords(tx, { kind: 'user', user }, now, [row], 'lost', input.reason, 'follow.lost', today);
    } else {
      if (!row.mark) throw AppError.badRequest('follow.not_marked', '该随访无需恢复');
      const state = stateOf({ ...row, mark: null }, today);
      await tx
        .update(followRecords)
        .set({ mark: null, markReason: null, state, updatedAt: now })
        .where(eq(followRecords.id, row.id));
      await audit(tx, user, now, [
        {
          studyId: row.studyId,
          subjectRecordId: row.subjectRecordId,
          action: 'follow.restore',
          itemName: row.visitName,
          oldValue: { state: FOLLOW_STATE_NAMES[row.state as FollowState], reason: row.markReason },
          newValue: { state: FOLLOW_STATE_NAMES[state] },
          reason: input.reason,
        },
      ]);
    }
    return { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
  });
  return afterVisitChange(ctx, result);
}

/** After a person changed one visit: its responsible person hears their new count. */
async function afterVisitChange(
  ctx: AppContext,
  change: { followRecordId: number; studyId: number; responsibleUserId: number | null },
) {
  if (change.responsibleUserId !== null) await pushVisitCounts(ctx, change.studyId, [change.responsibleUserId]);
  return { followRecordId: change.followRecordId };
}

/** Moves a visit's planned date (the window moves with it); a person's date is kept by later rescheduling. */
export async function changePlannedDate(
  ctx: AppContext,
  user: CurrentUser,
  input: { followRecordId: number; plannedDate: string; reason: string },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, input.followRecordId);
    const change = { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
    if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能修改计划日期');
    if (row.mark) throw AppError.badRequest('follow.marked', '该随访已失访或已删除');
    if (row.plannedDate === input.plannedDate) return change;
    const { timeZone } = await studyZone(tx, row.studyId);
    const state = stateOf({ ...row, plannedDate: input.plannedDate }, todayString(now, timeZone));
    await tx
      .update(followRecords)
      .set({ plannedDate: input.plannedDate, dateModified: true, state, updatedAt: now })
      .where(eq(followRecords.id, row.id));
    await audit(tx, user, now, [
      {
        studyId: row.studyId,
        subjectRecordId: row.subjectRecordId,
        action: 'follow.date',
        itemName: row.visitName,
        oldValue: { plannedDate: row.plannedDate },
        newValue: { plannedDate: input.plannedDate },
        reason: input.reason,
      },
    ]);
    return change;
  });
  return afterVisitChange(ctx, result);
}

export async function deleteRecord(ctx: AppContext, user: CurrentUser, followRecordId: number, reason: string) {
  const now = ctx.clock();
  const change = await ctx.db.transaction(async (tx) => {
    const row = await lockedRecord(tx, followRecordId);
    if (row.mark === 'deleted') throw AppError.badRequest('follow.marked', '该随访已删除');
    if (row.completedOn) throw AppError.badRequest('follow.done', '已完成的随访不能删除');
    await markRecords(tx, { kind: 'user', user }, now, [row], 'deleted', reason, 'follow.delete');
    return { followRecordId: row.id, studyId: row.studyId, responsibleUserId: row.responsibleUserId };
  });
  await afterVisitChange(ctx, change);
}

/** An unplanned visit (添加随访) with its forms, dated by a person. */
export async function addCustomVisit(
  ctx: AppContext,
  user: CurrentUser,
  input: {
    subjectRecordId: number;
    visitName: string;
    plannedDate: string;
    windowBefore: number;
    windowAfter: number;
    crfIds: number[];
    responsibleUserId?: number | null;
  },
) {
  const now = ctx.clock();
  const result = await ctx.db.transaction(async (tx) => {
    const [rec] = await tx
      .select({ studyId: subjectRecords.studyId, subjectId: subjectRecords.subjectId })
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, input.subjectRecordId), isNull(subjectRecords.deletedAt)));
    if (!rec) throw AppError.notFound('subject.not_found', '患者不存在');
    await assertWritable(tx, { studyId: rec.studyId, subjectRecordId: input.subjectRecordId });
    await checkPlanInput(tx, {
      studyId: rec.studyId,
      planName: '',
      visits: [{ ...input, offset: 0, unit: 'day' }],
    });
    const { timeZone } = await studyZone(tx, rec.studyId);
    const facts = {
      plannedDate: input.plannedDate,
      windowBefore: input.windowBefore,
      windowAfter: input.windowAfter,
      completedOn: null,
      mark: null,
    };
    const [row] = await tx
      .insert(followRecords)
      .values({
        studyId: rec.studyId,
        subjectId: rec.subjectId,
        subjectRecordId: input.subjectRecordId,
        visitName: input.visitName.trim(),
        plannedDate: input.plannedDate,
        windowBefore: input.windowBefore,
        windowAfter: input.windowAfter,
        responsibleUserId: input.responsibleUserId ?? null,
        custom: true,
        dateModified: true,
        state: followStateOf(facts, todayString(now, timeZone)),
        createdBy: user.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(followRecordCrfs).values(
      input.crfIds.map((crfId) => ({
        studyId: rec.studyId,
        followRecordId: row!.id,
        crfId,
        createdAt: now,
        updatedAt: now,
      })),
    );
    await audit(tx, user, now, [
      {
        studyId: rec.studyId,
        subjectRecordId: input.subjectRecordId,
        action: 'follow.custom',
        itemName: row!.visitName,
        newValue: {
          plannedDate: input.plannedDate,
          windowBefore: input.windowBefore,
          windowAfter: input.windowAfter,
          crfIds: input.crfIds,
        },
      },
    ]);
    return { followRecordId: row!.id, studyId: rec.studyId, responsibleUserId: row!.responsibleUserId };
  });
  return afterVisitChange(ctx, result);
}

/** The forms of one visit, each with the form record filled for it (or null) and whether it is submitted. */
export async function recordCrfs(ctx: AppContext, followRecordId: number) {
  const [row] = await ctx.db.select().from(followRecords).where(eq(followRecords.id, followRecordId));
  if (!row) throw AppError.notFound('follow.record_not_found', '随访记录不存在');
  const forms = await formsOfVisits(ctx.db, [followRecordId]);
  return forms.map((f) => ({
    followRecordCrfId: f.id,
    followRecordId,
    subjectRecordId: row.subjectRecordId,
    crfId: f.crfId,
    title: f.title,
    crfDataRecordId: f.crfDataRecordId,
    submitted: f.state === 2,
  }));
}

/** One visit form: by its id, or by (visit, form). What the CRF page needs to open it for that visit. */
export async function recordCrf(
  ctx: AppContext,
  by: { followRecordCrfId: number } | { followRecordId: number; crfId: number },
) {
  const where =
    'followRecordCrfId' in by
      ? eq(followRecordCrfs.id, by.followRecordCrfId)
      : and(eq(followRecordCrfs.followRecordId, by.followRecordId), eq(followRecordCrfs.crfId, by.crfId));
  const [row] = await ctx.db
    .select({ crf: followRecordCrfs, visit: followRecords, title: crfs.title })
    .from(followRecordCrfs)
    .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
    .innerJoin(crfs, eq(crfs.id, followRecordCrfs.crfId))
    .where(where);
  if (!row) throw AppError.notFound('follow.crf_not_found', '随访表单不存在');
  return {
    followRecordCrfId: row.crf.id,
    followRecordId: row.visit.id,
    subjectRecordId: row.visit.subjectRecordId,
    visitName: row.visit.visitName,
    plannedDate: row.visit.plannedDate,
    state: row.visit.state,
    stateName: FOLLOW_STATE_NAMES[row.visit.state as FollowState],
    crfId: row.crf.crfId,
    title: row.title,
    crfDataRecordId: row.crf.crfDataRecordId,
  };
}
