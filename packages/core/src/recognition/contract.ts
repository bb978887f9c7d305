import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { studyIdQuerySchema } from '../request-fields.js';

/**
 * The HTTP contract of recognition (docs/recognition.md "The calls"): the tempId for an uploaded image, the spec's
 * public recognition call, the source images of a patient's forms (SDV) and linking a recognition to its record.
 */

// ---- Requests ----

/** A single-use tempId for an uploaded file, tied to the form and record it fills (SDV). */
export const recognitionTempBodySchema = z.object({
  fileKey: z.string().regex(/^[0-9a-f]{32}$/, '文件不存在'),
  crfId: rowIdSchema.optional(),
  subjectRecordId: rowIdSchema.optional(),
  crfDataRecordId: rowIdSchema.optional(),
});
export type RecognitionTempBody = z.input<typeof recognitionTempBodySchema>;

const smallIntSchema = z.coerce.number({ error: '参数格式不正确' }).int('参数格式不正确').min(0).max(9999);

/** RECOG-06/RECOG-07: the spec's call, by tempId (no token on its path). */
export const recognitionCallBodySchema = z.object({
  url: z.string().max(2000).optional(),
  type: smallIntSchema,
  index: smallIntSchema.nullish().transform((v) => v ?? 0),
  tempId: z.string().max(200).optional(),
});
export type RecognitionCallBody = z.input<typeof recognitionCallBodySchema>;

export const recognitionSourcesQuerySchema = studyIdQuerySchema.extend({
  subjectRecordId: rowIdTextSchema,
  crfId: rowIdTextSchema.optional(),
});
export const recognitionIdParamSchema = z.object({ recognitionId: rowIdTextSchema });
export const recognitionLinkBodySchema = z.object({ crfDataRecordId: rowIdSchema });

// ---- Responses ----

export const recognitionTempSchema = z.strictObject({ tempId: z.string(), expiresIn: z.number() });
export type RecognitionTemp = z.infer<typeof recognitionTempSchema>;

/**
 * A recognition's answer: its rows in the spec's shape for the form's type (recognitionAnswer: `data.ret` or
 * `items`), read by the form's identify template, with the image's key and the recognition's id.
 */
export const recognitionResultSchema = z.looseObject({ fileKey: z.string(), recognitionId: z.number() });
export type RecognitionResult = z.infer<typeof recognitionResultSchema>;

/** A recognition's source image linked to a patient's form (SDV). */
export const recognitionSourceSchema = z.strictObject({
  recognitionId: z.number(),
  fileKey: z.string(),
  fileName: z.string(),
  /** An image in the object store (external mode): read at this address, not through the download call. */
  url: z.string().optional(),
  crfId: z.number().nullable(),
  subjectRecordId: z.number().nullable(),
  crfDataRecordId: z.number().nullable(),
  /** The call's identifyType and identifyIndex. */
  type: z.number().nullable(),
  index: z.number().nullable(),
  createdBy: z.number(),
  createdByName: z.string(),
  createdAt: z.string(),
});
export type RecognitionSource = z.infer<typeof recognitionSourceSchema>;
