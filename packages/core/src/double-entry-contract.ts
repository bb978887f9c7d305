import { z } from 'zod';
import { missingMarksSchema } from './crf/missing-codes.js';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of 双份录入 (issue 37): a form set to double entry is typed twice, blind, by two different
 * users (第一次录入, 第二次录入); a third user, holding 双录入核对 and neither of the two, compares the entries and
 * decides each difference, and the decided values become the form record through the one write path.
 */

export const DOUBLE_ENTRY_MSG = {
  configured: '设置成功',
  saved: '保存成功',
  done: '录入已完成',
  reconciled: '核对完成',
  notDoubleEntry: '该表单未设置双份录入',
  directSaveRefused: '该表单为双份录入表单，请分别完成第一次录入和第二次录入，由核对人核对后写入',
  bothEntriesTaken: '该表单的两次录入已由其他用户进行',
  entryDone: '本次录入已完成，不能再修改',
  entryNotFound: '您尚未开始录入该表单',
  notBothDone: '两次录入均完成后才能核对',
  reconcilerIsEnterer: '核对人不能是录入人',
  undecided: '请对每一处差异做出选择',
  notADifference: '所选题目不是两次录入的差异',
} as const;

/** The names people read: entry 1 and entry 2, and the reconcile step. */
export const DOUBLE_ENTRY_LABELS = { 1: '第一次录入', 2: '第二次录入' } as const;

// ---- Requests ----

/** PUT /api/business/study/crf/double_entry: set a form to double entry, or back. */
export const doubleEntryConfigBodySchema = z.object({
  studyId: rowIdSchema,
  crfId: rowIdSchema,
  doubleEntry: z.boolean(),
});

/** The form instance of a patient a double entry is for (the query of the reads). */
export const doubleEntryQuerySchema = z.object({
  studyId: rowIdTextSchema,
  subjectRecordId: rowIdTextSchema,
  crfId: rowIdTextSchema,
  crfDataRecordId: rowIdTextSchema.optional(),
});
export type DoubleEntryQuery = z.output<typeof doubleEntryQuerySchema>;

const instanceFields = {
  studyId: rowIdSchema,
  subjectRecordId: rowIdSchema,
  crfId: rowIdSchema,
  crfDataRecordId: rowIdSchema.nullish(),
};

/** PUT /api/business/double-entry/entry: save the caller's own entry (starting it if need be). */
export const doubleEntrySaveBodySchema = z.object({
  ...instanceFields,
  values: z.record(z.string(), z.unknown()),
  missing: missingMarksSchema.optional(),
});
export type DoubleEntrySaveBody = z.output<typeof doubleEntrySaveBodySchema>;

/** POST /api/business/double-entry/done: the caller's entry is finished (no more changes to it). */
export const doubleEntryDoneBodySchema = z.object(instanceFields);
export type DoubleEntryDoneBody = z.output<typeof doubleEntryDoneBodySchema>;

/** One decision: take entry 1's or entry 2's side, or the value (or 缺失原因 mark) read from the paper. */
export const doubleEntryDecisionSchema = z.union([
  z.literal('entry1'),
  z.literal('entry2'),
  z.object({ value: z.unknown().optional(), missing: z.string().max(20).nullish() }),
]);

/** POST /api/business/double-entry/reconcile: a decision for every difference. */
export const doubleEntryReconcileBodySchema = z.object({
  ...instanceFields,
  decisions: z.record(z.string().max(100), doubleEntryDecisionSchema),
  reason: z.string().max(500).nullish(),
});
export type DoubleEntryReconcileBody = z.output<typeof doubleEntryReconcileBodySchema>;

// ---- Responses ----

export const doubleEntrySchema = z.object({
  entryId: z.number(),
  entryNo: z.number(),
  state: z.enum(['draft', 'done']),
  userId: z.number(),
  userName: z.string(),
  crfVersion: z.number(),
  values: z.record(z.string(), z.unknown()),
  missing: z.record(z.string(), z.string()),
  updateDate: z.string(),
});
export type DoubleEntry = z.output<typeof doubleEntrySchema>;

/**
 * GET /api/business/double-entry/entry: whether the form is set to double entry, the caller's own entry (never the
 * other one: the entries are blind), and how far the pair is (which entries exist and are done, without values).
 */
export const myDoubleEntrySchema = z.object({
  doubleEntry: z.boolean(),
  entry: doubleEntrySchema.nullable(),
  /** The entry number the caller would get on a first save, null when both are another user's. */
  nextEntryNo: z.number().nullable(),
  pair: z.array(z.object({ entryNo: z.number(), state: z.enum(['draft', 'done']), userName: z.string() })),
  /** Whether the caller may reconcile this pair (holds 双录入核对 and typed neither entry). */
  mayReconcile: z.boolean(),
});
export type MyDoubleEntry = z.output<typeof myDoubleEntrySchema>;

/** GET /api/business/double-entry/compare: both entries side by side and the items they differ on. */
export const doubleEntryCompareSchema = z.object({
  entry1: doubleEntrySchema,
  entry2: doubleEntrySchema,
  differences: z.array(
    z.object({
      itemName: z.string(),
      entry1: z.unknown(),
      entry2: z.unknown(),
      missing1: z.string().nullable(),
      missing2: z.string().nullable(),
    }),
  ),
});
export type DoubleEntryCompare = z.output<typeof doubleEntryCompareSchema>;

// ---- The reconciler's list (待核对) ----

/** How far a pair is: entry 1 being typed, entry 2 being typed, both done (to reconcile), reconciled. */
export const DOUBLE_ENTRY_PAIR_STATES = ['entry1', 'entry2', 'pending', 'reconciled'] as const;
export type DoubleEntryPairState = (typeof DOUBLE_ENTRY_PAIR_STATES)[number];
export const DOUBLE_ENTRY_PAIR_STATE_LABELS: Record<DoubleEntryPairState, string> = {
  entry1: '第一次录入中',
  entry2: '第二次录入中',
  pending: '待核对',
  reconciled: '已核对',
};

/** GET /api/business/double-entry/pending: every double-entry pair of the study, paged (双录入核对). */
export const doubleEntryPendingQuerySchema = studyIdQuerySchema.extend({
  deptId: rowIdTextSchema.optional(),
  status: z.enum(DOUBLE_ENTRY_PAIR_STATES).optional(),
  ...pagingQueryFields,
});
export type DoubleEntryPendingQuery = z.output<typeof doubleEntryPendingQuerySchema>;

const pairEntrySchema = z.strictObject({
  userId: z.number(),
  userName: z.string(),
  state: z.enum(['draft', 'done']),
});

/** One pair: the patient, the site, the form and each entry's user and state. */
export const doubleEntryPairSchema = z.strictObject({
  subjectRecordId: z.number(),
  crfId: z.number(),
  crfDataRecordId: z.number().nullable(),
  identificationCode: z.string(),
  subjectName: z.string(),
  deptId: z.number().nullable(),
  siteName: z.string().nullable(),
  crfTitle: z.string(),
  entry1: pairEntrySchema.nullable(),
  entry2: pairEntrySchema.nullable(),
  status: z.enum(DOUBLE_ENTRY_PAIR_STATES),
  updateDate: z.string(),
});
export type DoubleEntryPair = z.output<typeof doubleEntryPairSchema>;
export const doubleEntryPairListSchema = z.strictObject({ list: z.array(doubleEntryPairSchema), total: z.number() });
