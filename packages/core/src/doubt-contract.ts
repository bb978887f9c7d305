import { z } from 'zod';
import { fileLinkSchema } from './crf-record-contract.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of data queries (质疑, QRY-*): raising, re-opening, replying to and closing a query, the list
 * with its filters, one query's thread and the waiting count. Requests as the server validates them, answers as the
 * browser reads them.
 */

// ---- Requests ----

/** `?studyId=`: the study of a query raised before its record exists (the record's study otherwise). */
export const doubtOpenQuerySchema = z.object({ studyId: rowIdTextSchema.optional() });

/** A new query on an item (or a list group's cell), or, with `doubtId`, a replied query opened again. */
export const doubtOpenBodySchema = z.object({
  crfDataRecordId: rowIdSchema.nullish(),
  itemName: z.string().max(100).optional(),
  groupName: z.string().max(100).nullish(),
  groupIndex: z.number().int().min(0).max(MAX_ROW_ID).nullish(),
  doubtDescription: z.string().max(1000),
  doubtId: rowIdSchema.nullish(),
});
export type OpenDoubtBody = z.input<typeof doubtOpenBodySchema>;

/** A reply to a query, or its closing, with words. */
export const doubtMessageBodySchema = z.object({ doubtId: rowIdSchema, content: z.string().max(1000).default('') });
export type DoubtMessageBody = z.input<typeof doubtMessageBodySchema>;

const dateTextSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();
const doubtFilterFields = {
  subjectRecordId: rowIdTextSchema.optional(),
  crfId: rowIdTextSchema.optional(),
  crfDataRecordId: rowIdTextSchema.optional(),
  itemName: z.string().optional(),
  optionType: z.coerce.number().int().min(0).max(2).optional(),
  doubtType: z.coerce.number().int().min(0).max(1).optional(),
  userName: z.string().trim().optional(),
  identificationCode: z.string().trim().optional(),
  beginDate: dateTextSchema,
  endDate: dateTextSchema,
};
/** GET /api/business/doubts (QRY-22): the study's queries, filtered and paged. */
export const doubtListQuerySchema = studyIdQuerySchema.extend({ ...pagingQueryFields, ...doubtFilterFields });
/** The filters of the query list. */
export type DoubtFilter = z.output<z.ZodObject<typeof doubtFilterFields>>;

// ---- Responses ----

/** A data query (QRY-03); the list adds the patient and the form, both add the item in words. */
export const doubtSchema = z.strictObject({
  doubtId: z.number(),
  studyId: z.number(),
  subjectRecordId: z.number(),
  crfDataRecordId: z.number(),
  crfId: z.number(),
  itemName: z.string(),
  /** The value when the query was raised. */
  itemValue: z.unknown(),
  groupName: z.string().nullable(),
  groupIndex: z.number().nullable(),
  doubtDescription: z.string(),
  /** QRY-04: 0 open (待回复), 2 replied (已回复), 1 closed (已关闭). */
  optionType: z.number(),
  /** QRY-05: 0 system, 1 user. */
  doubtType: z.number(),
  userName: z.string(),
  createDate: z.string(),
  updateDate: z.string(),
  closeDate: z.string().nullable(),
  identificationCode: z.string().optional(),
  subjectName: z.string().optional(),
  crfTitle: z.string().optional(),
  /** The item's title (a cell's column title) in the record's CRF version. */
  itemTitle: z.string().optional(),
  /** The list group or table of a cell; null for an item of the form. */
  groupTitle: z.string().nullable().optional(),
  /** The value when the query was raised, as a person reads it: labels, unit, file names. */
  itemValueText: z.string().optional(),
  itemUnit: z.string().optional(),
  /** The visit: the stage(s) the form belongs to. */
  stageName: z.string().optional(),
  crfVersion: z.number().nullable().optional(),
  itemFiles: z.array(fileLinkSchema).optional(),
});
export type Doubt = z.infer<typeof doubtSchema>;

export const DOUBT_MESSAGE_KINDS = ['open', 'reply', 'reopen', 'close', 'auto_close'] as const;
export type DoubtMessageKind = (typeof DOUBT_MESSAGE_KINDS)[number];

/** One message of a query's thread, with the item's value at the time. */
export const doubtMessageSchema = z.strictObject({
  id: z.number(),
  kind: z.enum(DOUBT_MESSAGE_KINDS),
  content: z.string(),
  itemValue: z.unknown(),
  itemValueText: z.string().optional(),
  userName: z.string(),
  createDate: z.string(),
});
export type DoubtMessage = z.infer<typeof doubtMessageSchema>;

/** GET /api/business/doubt/{id}: the query with its thread and the item's value now. */
export const doubtDetailSchema = doubtSchema.extend({
  currentValue: z.unknown(),
  currentValueText: z.string().optional(),
  messages: z.array(doubtMessageSchema),
});
export type DoubtDetail = z.infer<typeof doubtDetailSchema>;

export const doubtOpenedSchema = z.strictObject({ doubtId: z.number() });
/** How many queries wait for the caller: open ones to answer, replied ones to close. */
export const doubtWaitingSchema = z.strictObject({ waiting: z.number() });
