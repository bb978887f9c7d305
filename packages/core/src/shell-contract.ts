import { z } from 'zod';
import { rowIdSchema } from './ids.js';
import { pagingQueryFields } from './request-fields.js';

/**
 * What the shell (the top bar, SHELL-34) reads for every signed-in user: the caller's notices with their own read
 * mark, and how many stay unread once some are marked. The settings it reads are system-contract.ts's.
 */

/** GET /api/system/notice/list: a page of the caller's notices. */
export const myNoticeListQuerySchema = z.object({ ...pagingQueryFields });
export type MyNoticeListQuery = z.output<typeof myNoticeListQuerySchema>;

/** PUT /api/system/notice/read: the notices to mark read; none named marks all of the caller's. */
export const noticeReadBodySchema = z.object({ noticeIds: z.array(rowIdSchema).max(100).optional() });
export type NoticeReadBody = z.input<typeof noticeReadBodySchema>;

/** A notice as its reader sees it. */
export const myNoticeSchema = z.strictObject({
  noticeId: z.number(),
  title: z.string(),
  content: z.string(),
  createTime: z.string(),
  /** The signed-in user's own read mark. */
  read: z.boolean(),
});
export type MyNotice = z.infer<typeof myNoticeSchema>;

export const myNoticePageSchema = z.strictObject({ list: z.array(myNoticeSchema), total: z.number() });
export type MyNoticePage = z.infer<typeof myNoticePageSchema>;

/** How many of the caller's notices stay unread. */
export const noticeUnreadSchema = z.strictObject({ unread: z.number() });
