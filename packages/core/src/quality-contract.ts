import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of data quality runs (数据核查, issue 37): a data manager runs the study's checks over the stored
 * records on the job queue, reads the findings per rule, drills down, and raises one query per finding.
 */

export const QUALITY_JOB_KIND = 'quality-run';

/** Findings of a run, by the rule they break. Edit checks are one rule each: `editCheck:<crfId>:<item>:<n>`. */
export const QUALITY_RULE = {
  required: 'required',
  invalid: 'invalid',
  range: 'range',
  visitBeforeEnrolment: 'crossForm:visitBeforeEnrolment',
  duplicate: 'duplicate:nameBirth',
} as const;

export const EDIT_CHECK_RULE_PREFIX = 'editCheck:';

/** The rules' words in the per-rule list; an edit check's own message stands for it. */
export const QUALITY_RULE_TEXT: Readonly<Record<string, string>> = {
  [QUALITY_RULE.required]: '必填项未填写',
  [QUALITY_RULE.invalid]: '填写值不符合规则（格式或取值范围）',
  [QUALITY_RULE.range]: '超出参考范围',
  [QUALITY_RULE.visitBeforeEnrolment]: '随访表单的日期早于入组日期',
  [QUALITY_RULE.duplicate]: '疑似重复患者（姓名与出生日期相同）',
};

export const QUALITY_MSG = {
  started: '数据核查已开始',
  runNotFound: '核查记录不存在',
  siteOutside: '所选中心不在您的数据范围内',
  formNotFound: '表单不存在',
  chooseFindings: '请选择要发起质疑的核查结果或规则',
  patientLevel: '该核查结果不针对表单题目，无法发起质疑',
  notOpen: '该核查结果已发起质疑',
  runNotDone: '核查尚未完成',
} as const;

export const QUALITY_RUN_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type QualityRunState = (typeof QUALITY_RUN_STATES)[number];
export const QUALITY_FINDING_STATES = ['open', 'queried'] as const;
export type QualityFindingState = (typeof QUALITY_FINDING_STATES)[number];

// ---- Requests ----

/** What a run covers: the whole study, one site (with its sub-departments), or one form. */
export const qualityScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('study') }),
  z.object({ kind: z.literal('site'), deptId: rowIdSchema }),
  z.object({ kind: z.literal('form'), crfId: rowIdSchema }),
]);
export type QualityScope = z.infer<typeof qualityScopeSchema>;

/** POST /api/business/quality/run */
export const qualityRunBodySchema = z.object({ studyId: rowIdSchema, scope: qualityScopeSchema });
export type QualityRunBody = z.input<typeof qualityRunBodySchema>;

/** GET /api/business/quality/runs */
export const qualityRunsQuerySchema = studyIdQuerySchema.extend(pagingQueryFields);

/** GET /api/business/quality/run */
export const qualityRunQuerySchema = studyIdQuerySchema.extend({ runId: rowIdTextSchema });

/** GET /api/business/quality/findings */
export const qualityFindingsQuerySchema = studyIdQuerySchema.extend({
  runId: rowIdTextSchema,
  ruleKey: z.string().trim().min(1).max(120).optional(),
  status: z.enum(QUALITY_FINDING_STATES).optional(),
  ...pagingQueryFields,
});
export type QualityFindingsQuery = z.output<typeof qualityFindingsQuerySchema>;

/** POST /api/business/quality/queries: one query per open finding named (by id, or every one of a rule). */
export const qualityQueriesBodySchema = z
  .object({
    studyId: rowIdSchema,
    runId: rowIdSchema,
    findingIds: z.array(rowIdSchema).min(1).max(5000).optional(),
    ruleKey: z.string().trim().min(1).max(120).optional(),
  })
  .refine((b) => b.findingIds !== undefined || b.ruleKey !== undefined, {
    message: QUALITY_MSG.chooseFindings,
    path: ['findingIds'],
  });
export type QualityQueriesBody = z.input<typeof qualityQueriesBodySchema>;

/** GET /api/business/quality/dashboard */
export const qualityDashboardQuerySchema = studyIdQuerySchema;

// ---- Responses ----

export const qualityStartedSchema = z.strictObject({ runId: z.number(), jobId: z.string() });

export const qualityRuleCountSchema = z.strictObject({
  ruleKey: z.string(),
  ruleText: z.string(),
  count: z.number(),
  open: z.number(),
});
export type QualityRuleCount = z.infer<typeof qualityRuleCountSchema>;

export const qualityRunSchema = z.strictObject({
  runId: z.number(),
  studyId: z.number(),
  scope: qualityScopeSchema,
  state: z.enum(QUALITY_RUN_STATES),
  jobId: z.string().nullable(),
  /** The job's progress, 0–100 (100 once done). */
  progress: z.number(),
  recordsChecked: z.number(),
  /** Findings the caller sees (their sites'). */
  findingsCount: z.number(),
  rules: z.array(qualityRuleCountSchema),
  error: z.string().nullable(),
  startedBy: z.string().nullable(),
  createDate: z.string(),
  finishDate: z.string().nullable(),
});
export type QualityRun = z.infer<typeof qualityRunSchema>;

export const qualityRunListSchema = z.strictObject({
  list: z.array(qualityRunSchema.omit({ rules: true })),
  total: z.number(),
});

export const qualityFindingSchema = z.strictObject({
  findingId: z.number(),
  runId: z.number(),
  subjectRecordId: z.number(),
  crfDataRecordId: z.number().nullable(),
  identificationCode: z.string(),
  deptId: z.number().nullable(),
  siteName: z.string().nullable(),
  crfId: z.number().nullable(),
  crfTitle: z.string().nullable(),
  itemName: z.string().nullable(),
  itemTitle: z.string().nullable(),
  ruleKey: z.string(),
  ruleText: z.string(),
  status: z.enum(QUALITY_FINDING_STATES),
  doubtId: z.number().nullable(),
});
export type QualityFinding = z.infer<typeof qualityFindingSchema>;

export const qualityFindingListSchema = z.strictObject({ list: z.array(qualityFindingSchema), total: z.number() });

export const qualityQueriesResultSchema = z.strictObject({
  raised: z.number(),
  refused: z.array(z.strictObject({ findingId: z.number(), reason: z.string() })),
});
export type QualityQueriesResult = z.infer<typeof qualityQueriesResultSchema>;

/** Open findings of each finished run (newest last), per site and per rule: the trend over run dates. */
export const qualityDashboardSchema = z.strictObject({
  runs: z.array(
    z.strictObject({
      runId: z.number(),
      runDate: z.string(),
      open: z.number(),
      bySite: z.array(z.strictObject({ deptId: z.number().nullable(), siteName: z.string(), open: z.number() })),
      byRule: z.array(z.strictObject({ ruleKey: z.string(), ruleText: z.string(), open: z.number() })),
    }),
  ),
});
export type QualityDashboard = z.infer<typeof qualityDashboardSchema>;

/** The words of a rule in the per-rule list: the catalogue's, or an edit check's own message. */
export function qualityRuleText(ruleKey: string, findingText: string): string {
  return QUALITY_RULE_TEXT[ruleKey] ?? findingText;
}
