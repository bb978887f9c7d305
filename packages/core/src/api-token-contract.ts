import { z } from 'zod';
import { INVALID_ID_MSG, MAX_ROW_ID } from './ids.js';

/**
 * The HTTP contract of the caller's own REDCap API tokens (个人中心, docs/redcap-api.md): the list, the studies a
 * token may be made for, creating one (its token shown once) and revoking one.
 */

export const apiTokenCreateBodySchema = z.object({
  studyId: z.number({ error: '请选择项目' }).int().positive().max(MAX_ROW_ID, INVALID_ID_MSG),
});
export type ApiTokenCreateBody = z.input<typeof apiTokenCreateBodySchema>;

/** One of the caller's tokens; the token itself is never listed. */
export const apiTokenRowSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  studyName: z.string(),
  createTime: z.string(),
  lastUsedTime: z.string().nullable(),
  revokeTime: z.string().nullable(),
});
export type ApiTokenRow = z.infer<typeof apiTokenRowSchema>;

/** A study the caller may make a token for (one whose forms they may view). */
export const apiTokenStudySchema = z.strictObject({ studyId: z.number(), studyName: z.string() });
export type ApiTokenStudy = z.infer<typeof apiTokenStudySchema>;

export const createdApiTokenSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  /** Shown once: the server keeps only its hash. */
  token: z.string(),
  createTime: z.string(),
});
export type CreatedApiToken = z.infer<typeof createdApiTokenSchema>;
