import { z } from 'zod';

/**
 * What the shell (the top bar, SHELL-34) reads for every signed-in user: the caller's notices with their own read
 * mark, and how many stay unread once some are marked. The settings it reads are system-contract.ts's.
 */

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
