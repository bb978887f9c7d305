import { and, eq, isNull, ne } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, doubts, studies, subjectRecords } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { actorOf, audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import {
  addMessage,
  currentValueOf,
  DOUBT_MSG,
  DOUBT_TYPE,
  insertOpenDoubt,
  notFound,
  OPTION,
  valueAt,
} from './doubt.service.js';

// A user's query, step by step: a monitor raises (or re-opens) it, site staff answer it, the monitor closes it.

async function requireDoubtsOn(db: Db, studyId: number) {
  const [study] = await db.select({ doubt: studies.doubt }).from(studies).where(eq(studies.studyId, studyId));
  if (study?.doubt !== '1') throw AppError.badRequest('doubt.disabled', DOUBT_MSG.disabled);
}

/** The patient (subjects.id) of a casebook, for the events about its queries. */
async function subjectOf(db: Db, subjectRecordId: number) {
  const [row] = await db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  return row!.subjectId;
}

/** A query event, after the change to the query is written, in its transaction. */
async function recordQueryEvent(
  ctx: AppContext,
  tx: Db,
  type: 'query.opened' | 'query.answered' | 'query.closed',
  doubt: { id: number; studyId: number; subjectRecordId: number; crfId: number },
  by: number,
) {
  await ctx.events.record(tx, {
    type,
    studyId: doubt.studyId,
    subjectId: await subjectOf(tx, doubt.subjectRecordId),
    crfId: doubt.crfId,
    queryId: doubt.id,
    by,
  });
}

type Doubt = typeof doubts.$inferSelect;

/** A query of the caller's study, locked for a step on it, whose casebook and record still take changes. */
async function lockedDoubt(tx: Db, access: StudyAccess, doubtId: number) {
  const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, doubtId)).for('update');
  if (!doubt || doubt.studyId !== access.studyId) throw notFound();
  await assertWritable(tx, {
    studyId: doubt.studyId,
    subjectRecordId: doubt.subjectRecordId,
    crfDataRecordId: doubt.crfDataRecordId,
  });
  return doubt;
}

/** As lockedDoubt, for answering or closing: a closed query takes neither. */
async function lockedUnclosedDoubt(tx: Db, access: StudyAccess, doubtId: number) {
  const doubt = await lockedDoubt(tx, access, doubtId);
  if (doubt.optionType === OPTION.closed) throw AppError.conflict('doubt.closed', '质疑已关闭');
  return doubt;
}

/** What the audit row of a step on an existing query says about the query. */
const auditedStep = (doubt: Doubt, action: 'doubt.reopen' | 'doubt.reply' | 'doubt.close') => ({
  studyId: doubt.studyId,
  subjectRecordId: doubt.subjectRecordId,
  crfDataRecordId: doubt.crfDataRecordId,
  crfId: doubt.crfId,
  action,
  itemName: doubt.itemName,
});

export interface OpenInput {
  crfDataRecordId?: number | null;
  itemName?: string;
  groupName?: string | null;
  groupIndex?: number | null;
  doubtDescription: string;
  /** Re-open a replied query with a new message. */
  doubtId?: number | null;
}

/** A monitor raises a query on one item of a saved record, or re-opens a replied one. */
export async function openDoubt(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: OpenInput) {
  const content = input.doubtDescription?.trim();
  if (!content) throw AppError.badRequest('doubt.content_required', DOUBT_MSG.contentRequired);
  await requireDoubtsOn(ctx.db, access.studyId);
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    if (input.doubtId) {
      const doubt = await lockedDoubt(tx, access, input.doubtId);
      if (doubt.optionType !== OPTION.replied) {
        throw AppError.conflict('doubt.not_replied', '只有已回复的质疑可以重新开启');
      }
      const value = await currentValueOf(tx, doubt);
      await tx.update(doubts).set({ optionType: OPTION.open, updatedAt: now }).where(eq(doubts.id, doubt.id));
      await addMessage(tx, doubt.id, doubt.studyId, 'reopen', content, value, actorOf(user), now);
      await audit(tx, user, now, [{ ...auditedStep(doubt, 'doubt.reopen'), newValue: content }]);
      await recordQueryEvent(ctx, tx, 'query.opened', doubt, user.userId);
      return { doubtId: doubt.id };
    }
    if (!input.crfDataRecordId) throw AppError.badRequest('doubt.save_first', DOUBT_MSG.saveFirst);
    const [record] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, input.crfDataRecordId), isNull(crfDataRecords.deletedAt)));
    if (!record || record.studyId !== access.studyId) {
      throw AppError.badRequest('doubt.save_first', DOUBT_MSG.saveFirst);
    }
    await assertWritable(tx, {
      studyId: record.studyId,
      subjectRecordId: record.subjectRecordId,
      crfDataRecordId: record.id,
    });
    if (!input.itemName) throw AppError.badRequest('doubt.item_required', '请选择质疑的题目');
    const [existing] = await tx
      .select({ id: doubts.id })
      .from(doubts)
      .where(
        and(
          eq(doubts.crfDataRecordId, record.id),
          eq(doubts.itemName, input.itemName),
          input.groupName ? eq(doubts.groupName, input.groupName) : isNull(doubts.groupName),
          input.groupIndex !== undefined && input.groupIndex !== null
            ? eq(doubts.groupIndex, input.groupIndex)
            : isNull(doubts.groupIndex),
          ne(doubts.optionType, OPTION.closed),
          eq(doubts.doubtType, DOUBT_TYPE.user),
        ),
      );
    if (existing) throw AppError.conflict('doubt.already_open', DOUBT_MSG.alreadyOpen);
    const itemValue = valueAt(record.values, input.itemName, input.groupName, input.groupIndex);
    const doubtId = await insertOpenDoubt(
      tx,
      record,
      {
        itemName: input.itemName,
        groupName: input.groupName ?? null,
        groupIndex: input.groupIndex ?? null,
        itemValue,
        doubtDescription: content,
        doubtType: DOUBT_TYPE.user,
        createdBy: user.userId,
        userName: actorOf(user).userName,
      },
      now,
    );
    await addMessage(tx, doubtId, record.studyId, 'open', content, itemValue, actorOf(user), now);
    await audit(tx, user, now, [
      {
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        action: 'doubt.open',
        itemName: input.itemName,
        newValue: content,
      },
    ]);
    await recordQueryEvent(ctx, tx, 'query.opened', { ...record, id: doubtId }, user.userId);
    return { doubtId };
  });
}

export async function replyDoubt(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  doubtId: number,
  content: string,
) {
  if (!content?.trim()) throw AppError.badRequest('doubt.reply_required', DOUBT_MSG.replyRequired);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const doubt = await lockedUnclosedDoubt(tx, access, doubtId);
    const value = await currentValueOf(tx, doubt);
    await tx.update(doubts).set({ optionType: OPTION.replied, updatedAt: now }).where(eq(doubts.id, doubtId));
    await addMessage(tx, doubtId, doubt.studyId, 'reply', content.trim(), value, actorOf(user), now);
    await audit(tx, user, now, [{ ...auditedStep(doubt, 'doubt.reply'), newValue: content.trim() }]);
    await recordQueryEvent(ctx, tx, 'query.answered', doubt, user.userId);
  });
}

export async function closeDoubt(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  doubtId: number,
  reason: string,
) {
  if (!reason?.trim()) throw AppError.badRequest('doubt.close_required', DOUBT_MSG.closeRequired);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const doubt = await lockedUnclosedDoubt(tx, access, doubtId);
    await tx
      .update(doubts)
      .set({ optionType: OPTION.closed, closedAt: now, updatedAt: now })
      .where(eq(doubts.id, doubtId));
    await addMessage(tx, doubtId, doubt.studyId, 'close', reason.trim(), null, actorOf(user), now);
    await audit(tx, user, now, [{ ...auditedStep(doubt, 'doubt.close'), reason: reason.trim() }]);
    await recordQueryEvent(ctx, tx, 'query.closed', doubt, user.userId);
  });
}
