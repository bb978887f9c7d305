import { z } from 'zod';
import { consultAnswerInput, consultQuestionInput } from './consult.js';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of 在线咨询 on the staff side (docs/content.md, Consultation): the study's questions, one
 * question, a question entered on a patient's behalf, answering and closing. The patient side's answers are
 * patient-portal-contract.ts's; the question's and the answer's fields are consult.ts's.
 */

// ---- Requests ----

/** advisory/manager/list (KNOW-05): paged, waiting questions first. */
export const consultListQuerySchema = studyIdQuerySchema.extend({
  /** A ConsultState: 0 待回复, 1 已回复, 2 已关闭. */
  state: z.coerce.number().int().min(0).max(2).optional(),
  keyword: z.string().max(50).optional(),
  subjectId: rowIdTextSchema.optional(),
  ...pagingQueryFields,
});
export type ConsultListQuery = z.output<typeof consultListQuerySchema>;

/** A question entered by staff on a patient's behalf. */
export const consultAskBodySchema = consultQuestionInput.extend({ studyId: rowIdSchema, subjectId: rowIdSchema });
export type ConsultAskBody = z.input<typeof consultAskBodySchema>;

export const consultAnswerBodySchema = consultAnswerInput.extend({ studyId: rowIdSchema });
export type ConsultAnswerBody = z.input<typeof consultAnswerBodySchema>;

export const consultCloseBodySchema = z.object({ studyId: rowIdSchema });
export type ConsultCloseBody = z.input<typeof consultCloseBodySchema>;

// ---- Responses ----

/** One question as staff read it. The patient appears by code and name, masked without 查看患者身份信息. */
export const consultViewSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  /** null for a question that names no patient. */
  subjectId: z.number().nullable(),
  identificationCode: z.string().nullable(),
  subjectName: z.string().nullable(),
  source: z.enum(['patient', 'staff']),
  title: z.string(),
  question: z.string(),
  /** A ConsultState. */
  state: z.literal([0, 1, 2]),
  stateName: z.string(),
  answer: z.string().nullable(),
  answeredByName: z.string().nullable(),
  answeredTime: z.string().nullable(),
  closedTime: z.string().nullable(),
  createdByName: z.string().nullable(),
  createTime: z.string(),
});
export type ConsultView = z.infer<typeof consultViewSchema>;
