import { z } from 'zod';
import { rowIdSchema } from './ids.js';

/**
 * The HTTP contract of 通知公告管理 (the administrators' notices): writing a notice for all users, a system role or a
 * study's staff, the list with whom each is for and how many read it. Its list's query is system-contract.ts's; what
 * a reader sees is shell-contract.ts's.
 */

/** Who a notice (通知公告) is for. */
export const NOTICE_TARGETS = [
  ['all', '全部用户'],
  ['role', '指定角色'],
  ['study', '指定项目'],
] as const;
export type NoticeTarget = (typeof NOTICE_TARGETS)[number][0];
const noticeTargetSchema = z.enum(['all', 'role', 'study']);

// ---- Requests ----

/** A new or changed notice (POST /api/system/notice, PUT /api/system/notice/{id}). */
export const noticeInput = z
  .object({
    title: z.string().trim().min(1, '请输入公告标题').max(100, '标题不可超过100字'),
    content: z.string().trim().max(2000, '内容不可超过2000字').default(''),
    targetType: noticeTargetSchema.default('all'),
    targetRoleId: rowIdSchema.nullish(),
    targetStudyId: rowIdSchema.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.targetType === 'role' && !v.targetRoleId) {
      ctx.addIssue({ code: 'custom', path: ['targetRoleId'], message: '请选择角色' });
    }
    if (v.targetType === 'study' && !v.targetStudyId) {
      ctx.addIssue({ code: 'custom', path: ['targetStudyId'], message: '请选择项目' });
    }
  });
/** The notice as the server reads it (its defaults filled). */
export type NoticeInput = z.infer<typeof noticeInput>;
/** The notice as the browser sends it. */
export type NoticeBody = z.input<typeof noticeInput>;

// ---- Responses ----

/** A row of the administrators' list. */
export const noticeAdminRowSchema = z.strictObject({
  noticeId: z.number(),
  title: z.string(),
  content: z.string(),
  targetType: noticeTargetSchema,
  targetRoleId: z.number().nullable(),
  targetStudyId: z.number().nullable(),
  /** The role's or study's name; null for all users. */
  targetName: z.string().nullable(),
  readCount: z.number(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type NoticeAdminRow = z.infer<typeof noticeAdminRowSchema>;

/** A written or changed notice. */
export const noticeSavedSchema = z.strictObject({ noticeId: z.number() });
export type NoticeSaved = z.infer<typeof noticeSavedSchema>;
