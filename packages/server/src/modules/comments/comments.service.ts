import { and, asc, eq, isNull } from 'drizzle-orm';
import { COMMENT_MSG, isRowType, isValueType, type CommentListQuery } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, itemComments } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { actorOf, audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';

// Field comments (批注, issue 37): notes on one item of a saved form record that are not queries. Who may read the
// form may read and add them; a lock takes no new one; each is an audit row of the same transaction. Append-only:
// there is no edit or delete, so what the monitor read stays what was written (a correction is a new comment).
// Site scope is the study guard's: every request names its crfDataRecordId, which the guard locates.

const recordNotFound = () => AppError.notFound('comment.record_not_found', COMMENT_MSG.recordNotFound);

/** The live form record of the caller's study, readable by the caller (403 without the form's view permission). */
async function readableRecord(db: Db, access: StudyAccess, crfDataRecordId: number) {
  const [record] = await db
    .select({
      id: crfDataRecords.id,
      studyId: crfDataRecords.studyId,
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfDataRecords.crfId,
      crfVersion: crfDataRecords.crfVersion,
    })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.id, crfDataRecordId), isNull(crfDataRecords.deletedAt)));
  // A record of another study reads as one that does not exist, as the guard answers another site's.
  if (!record || record.studyId !== access.studyId) throw recordNotFound();
  if (!canViewCrf(access, record.crfId)) throw AppError.forbidden();
  return record;
}

function present(row: typeof itemComments.$inferSelect) {
  return {
    commentId: row.id,
    studyId: row.studyId,
    subjectRecordId: row.subjectRecordId,
    crfDataRecordId: row.crfDataRecordId,
    crfId: row.crfId,
    itemName: row.itemName,
    content: row.content,
    userId: row.userId,
    userName: row.userName,
    createDate: new Date(row.createdAt).toISOString(),
  };
}

/** A record's comments, oldest first (a thread reads down), or one item's. */
export async function listComments(ctx: AppContext, access: StudyAccess, query: CommentListQuery) {
  const record = await readableRecord(ctx.db, access, query.crfDataRecordId);
  const rows = await ctx.db
    .select()
    .from(itemComments)
    .where(
      and(
        eq(itemComments.studyId, record.studyId),
        eq(itemComments.crfDataRecordId, record.id),
        query.itemName ? eq(itemComments.itemName, query.itemName) : undefined,
      ),
    )
    .orderBy(asc(itemComments.createdAt), asc(itemComments.id));
  return rows.map(present);
}

export interface AddCommentInput {
  crfDataRecordId: number;
  itemName: string;
  /** Trimmed, 1..500 characters: the route's schema (core's commentAddBodySchema) has checked it. */
  content: string;
}

/** Adds a comment to an item of the record's form version, with its audit row, unless the data is locked. */
export async function addComment(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: AddCommentInput) {
  const content = input.content.trim();
  if (!content) throw AppError.badRequest('comment.content_required', COMMENT_MSG.contentRequired);
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const record = await readableRecord(tx, access, input.crfDataRecordId);
    // Items are those the record's own version defines (a list group or table counts as one item, as in the panel).
    const node = nodesOf(await definitionOf(tx, record.crfId, record.crfVersion)).get(input.itemName);
    if (!node || !(isValueType(node.type) || isRowType(node.type))) {
      throw AppError.badRequest('comment.item_not_in_form', COMMENT_MSG.itemNotInForm);
    }
    await assertWritable(tx, {
      studyId: record.studyId,
      subjectRecordId: record.subjectRecordId,
      crfDataRecordId: record.id,
    });
    const actor = actorOf(user);
    const [row] = await tx
      .insert(itemComments)
      .values({
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        itemName: input.itemName,
        content,
        userId: actor.userId,
        userName: actor.userName,
        createdAt: now,
      })
      .returning();
    await audit(tx, user, now, [
      {
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        crfVersion: record.crfVersion,
        action: 'crf.comment',
        itemName: input.itemName,
        newValue: content,
      },
    ]);
    return present(row!);
  });
}
