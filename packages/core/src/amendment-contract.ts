import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of CRF drafts and amendments (issue 36): a production study's draft of a CRF, the impact
 * report of publishing it over the form's live records, the amendment it becomes, and the move of records to the
 * new version as a background job.
 */

// ---- Requests ----

/** `?studyId=&crfId=`: a CRF's draft. */
export const crfDraftQuerySchema = studyIdQuerySchema.extend({ crfId: rowIdTextSchema });
export const crfDraftBodySchema = z.object({ studyId: rowIdSchema, crfId: rowIdSchema });

/** What the engine finds about a value of a live record under the new version. */
export const impactFindingKindSchema = z.enum([
  'removed',
  'hidden',
  'invalid',
  'outOfRange',
  'calculation',
  'converted',
]);
export type ImpactFindingKind = z.infer<typeof impactFindingKindSchema>;

/** What each finding means, in the report's words (the page and the Excel download). */
export const IMPACT_KIND_NAMES: Readonly<Record<ImpactFindingKind, string>> = {
  removed: '题目已删除（数据保留在历史中）',
  hidden: '将被新显示条件隐藏',
  invalid: '不符合新规则',
  outOfRange: '超出新范围',
  calculation: '计算结果变化',
  converted: '类型转换',
};

const drillDownFields = {
  kind: impactFindingKindSchema.optional(),
  itemName: z.string().trim().max(200).optional(),
  ...pagingQueryFields,
};
/** The drill-down of a draft's impact: the findings, by kind and item when given. */
export const crfDraftImpactRecordsQuerySchema = crfDraftQuerySchema.extend(drillDownFields);
/** The drill-down of an amendment's impact over the records still to move. */
export const amendmentImpactRecordsQuerySchema = studyIdQuerySchema.extend(drillDownFields);

export const amendmentNameSchema = z.string().trim().min(1, '请填写修订名称').max(200, '修订名称不能超过200个字符');
export const crfDraftPublishBodySchema = crfDraftBodySchema.extend({ name: amendmentNameSchema });

export const migrationScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('sites'), deptIds: z.array(rowIdSchema).min(1).max(1_000) }),
  z.object({ kind: z.literal('records'), crfDataRecordIds: z.array(rowIdSchema).min(1).max(100_000) }),
]);
export type MigrationScope = z.infer<typeof migrationScopeSchema>;

export const amendmentMigrateBodySchema = z.object({
  studyId: rowIdSchema,
  amendmentId: rowIdSchema,
  reason: z.string().trim().max(500).optional(),
  scope: migrationScopeSchema,
});
export type AmendmentMigrateBody = z.infer<typeof amendmentMigrateBodySchema>;

// ---- Responses ----

/** A CRF's open draft, or null. */
export const crfDraftSchema = z.strictObject({
  version: z.number(),
  itemCount: z.number(),
  createdAt: z.string(),
  createdByName: z.string().nullable(),
});
export type CrfDraft = z.infer<typeof crfDraftSchema>;

const itemRefSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: z.string().optional(),
  fromType: z.string().optional(),
  toType: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});

/** What publishing a version does to the form's live records: counts only, never values. */
export const impactSummarySchema = z.object({
  crfId: z.number(),
  fromVersion: z.number(),
  toVersion: z.number(),
  diff: z.object({
    added: z.array(itemRefSchema),
    removed: z.array(itemRefSchema),
    renamed: z.array(itemRefSchema),
    retyped: z.array(itemRefSchema),
  }),
  records: z.object({
    total: z.number(),
    submitted: z.number(),
    signed: z.number(),
    sdvVerified: z.number(),
    locked: z.number(),
    changed: z.number(),
    unchanged: z.number(),
  }),
  findings: z.array(
    z.object({ kind: impactFindingKindSchema, itemName: z.string(), label: z.string(), count: z.number() }),
  ),
});
export type ImpactSummaryView = z.infer<typeof impactSummarySchema>;

/** One finding of the drill-down: a value of a live record and what the new version does with it. */
export const impactRecordRowSchema = z.strictObject({
  crfDataRecordId: z.number(),
  subjectRecordId: z.number(),
  identificationCode: z.string(),
  siteName: z.string().nullable(),
  itemName: z.string(),
  label: z.string(),
  kind: impactFindingKindSchema,
  oldValue: z.unknown(),
  newValue: z.unknown(),
  submitted: z.boolean(),
  signed: z.boolean(),
  sdvVerified: z.boolean(),
  locked: z.boolean(),
});
export type ImpactRecordRow = z.infer<typeof impactRecordRowSchema>;

export const crfPublishResultSchema = z.strictObject({ amendmentId: z.number(), version: z.number() });

/** A row of the amendments list. */
export const amendmentRowSchema = z.strictObject({
  id: z.number(),
  name: z.string(),
  kind: z.enum(['crf', 'follow']),
  crfId: z.number().nullable(),
  crfTitle: z.string().nullable(),
  followPlanId: z.number().nullable(),
  fromVersion: z.number().nullable(),
  toVersion: z.number().nullable(),
  createdAt: z.string(),
  createdByName: z.string().nullable(),
  report: z.unknown(),
  /** Live records still on a version older than the amendment's (0 for a follow-up plan's). */
  remaining: z.number(),
});
export type AmendmentRow = z.infer<typeof amendmentRowSchema>;

/** The migration job's result. */
export const migrationResultSchema = z.strictObject({
  moved: z.number(),
  changed: z.number(),
  skippedLocked: z.number(),
  failed: z.number(),
});
export type MigrationResult = z.infer<typeof migrationResultSchema>;

/** The job kind of a migration (the jobs API shows its progress). */
export const CRF_MIGRATION_JOB_KIND = 'crf-migration';
