import { and, eq, isNull, ne } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, doubts, studies, subjectRecords } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { addMessage, DOUBT_MSG, DOUBT_TYPE, notFound, OPTION, valueAt } from './doubt.service.js';

// A user's query, step by step: a monitor raises (or re-opens) it, site staff answer it, the monitor closes it.

const nameOf = (user: CurrentUser) => `${user.name}(${user.userName})`;

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
      const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, input.doubtId)).for('update');
      if (!doubt || doubt.studyId !== access.studyId) throw notFound();
      await assertWritable(tx, {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
      });
      if (doubt.optionType !== OPTION.replied) {
        throw AppError.conflict('doubt.not_replied', '只有已回复的质疑可以重新开启');
      }
      const [record] = await tx
        .select({ values: crfDataRecords.values })
        .from(crfDataRecords)
        .where(eq(crfDataRecords.id, doubt.crfDataRecordId));
      const value = valueAt(record?.values ?? {}, doubt.itemName, doubt.groupName, doubt.groupIndex);
      await tx.update(doubts).set({ optionType: OPTION.open, updatedAt: now }).where(eq(doubts.id, doubt.id));
      await addMessage(
        tx,
        doubt.id,
        doubt.studyId,
        'reopen',
        content,
        value,
        { userId: user.userId, userName: nameOf(user) },
        now,
      );
      await audit(tx, user, now, [
        {
          studyId: doubt.studyId,
          subjectRecordId: doubt.subjectRecordId,
          crfDataRecordId: doubt.crfDataRecordId,
          crfId: doubt.crfId,
          action: 'doubt.reopen',
          itemName: doubt.itemName,
          newValue: content,
        },
      ]);
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
    const [row] = await tx
      .insert(doubts)
      .values({
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        itemName: input.itemName,
        groupName: input.groupName ?? null,
        groupIndex: input.groupIndex ?? null,
        itemValue,
        doubtDescription: content,
        optionType: OPTION.open,
        doubtType: DOUBT_TYPE.user,
        createdBy: user.userId,
        userName: nameOf(user),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: doubts.id });
    await addMessage(
      tx,
      row!.id,
      record.studyId,
      'open',
      content,
      itemValue,
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
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
    await recordQueryEvent(ctx, tx, 'query.opened', { ...record, id: row!.id }, user.userId);
    return { doubtId: row!.id };
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
    const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, doubtId)).for('update');
    if (!doubt || doubt.studyId !== access.studyId) throw notFound();
    await assertWritable(tx, {
      studyId: doubt.studyId,
      subjectRecordId: doubt.subjectRecordId,
      crfDataRecordId: doubt.crfDataRecordId,
    });
    if (doubt.optionType === OPTION.closed) throw AppError.conflict('doubt.closed', '质疑已关闭');
    const [record] = await tx
      .select({ values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, doubt.crfDataRecordId));
    await tx.update(doubts).set({ optionType: OPTION.replied, updatedAt: now }).where(eq(doubts.id, doubtId));
    await addMessage(
      tx,
      doubtId,
      doubt.studyId,
      'reply',
      content.trim(),
      valueAt(record?.values ?? {}, doubt.itemName, doubt.groupName, doubt.groupIndex),
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
    await audit(tx, user, now, [
      {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
        crfId: doubt.crfId,
        action: 'doubt.reply',
        itemName: doubt.itemName,
        newValue: content.trim(),
      },
    ]);
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
    const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, doubtId)).for('update');
    if (!doubt || doubt.studyId !== access.studyId) throw notFound();
    await assertWritable(tx, {
      studyId: doubt.studyId,
      subjectRecordId: doubt.subjectRecordId,
      crfDataRecordId: doubt.crfDataRecordId,
    });
    if (doubt.optionType === OPTION.closed) throw AppError.conflict('doubt.closed', '质疑已关闭');
    await tx
      .update(doubts)
      .set({ optionType: OPTION.closed, closedAt: now, updatedAt: now })
      .where(eq(doubts.id, doubtId));
    await addMessage(
      tx,
      doubtId,
      doubt.studyId,
      'close',
      reason.trim(),
      null,
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
    await audit(tx, user, now, [
      {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
        crfId: doubt.crfId,
        action: 'doubt.close',
        itemName: doubt.itemName,
        reason: reason.trim(),
      },
    ]);
    await recordQueryEvent(ctx, tx, 'query.closed', doubt, user.userId);
  });
}
