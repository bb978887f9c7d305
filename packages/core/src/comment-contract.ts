import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of field comments (批注, issue 37): notes on one item of a saved form record that are not
 * queries — a word for the monitor, where a value comes from. Append-only: a comment is added and read, never
 * changed or removed (the trail keeps each one as written).
 */

export const COMMENT_MAX_LENGTH = 500;

export const COMMENT_MSG = {
  added: '批注已添加',
  contentRequired: '请输入批注内容',
  contentTooLong: `批注内容不能超过${COMMENT_MAX_LENGTH}个字`,
  recordNotFound: '表单记录不存在',
  itemNotInForm: '该题目不属于此表单',
} as const;

// ---- Requests ----

/** GET /api/business/crf/comments: a record's comments, or one item's with `itemName`. */
export const commentListQuerySchema = studyIdQuerySchema.extend({
  crfDataRecordId: rowIdTextSchema,
  itemName: z.string().max(100).optional(),
});
export type CommentListQuery = z.output<typeof commentListQuerySchema>;

/** POST /api/business/crf/comment: a new comment on an item of a saved record. */
export const commentAddBodySchema = z.object({
  studyId: rowIdSchema,
  crfDataRecordId: rowIdSchema,
  itemName: z.string().trim().min(1).max(100),
  content: z
    .string({ error: COMMENT_MSG.contentRequired })
    .trim()
    .min(1, COMMENT_MSG.contentRequired)
    .max(COMMENT_MAX_LENGTH, COMMENT_MSG.contentTooLong),
});
export type CommentAddBody = z.input<typeof commentAddBodySchema>;

// ---- Responses ----

/** One comment: who wrote it (name and account, as the trail names people), when, on which item. */
export const itemCommentSchema = z.strictObject({
  commentId: z.number(),
  studyId: z.number(),
  subjectRecordId: z.number(),
  crfDataRecordId: z.number(),
  crfId: z.number(),
  itemName: z.string(),
  content: z.string(),
  userId: z.number(),
  userName: z.string(),
  createDate: z.string(),
});
export type ItemComment = z.infer<typeof itemCommentSchema>;

export const commentListSchema = z.array(itemCommentSchema);
