import { z } from 'zod';
import { isTimeZone } from './crf/date-time.js';
import { isDateString } from './follow/schedule.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';
import { SPINE_BAND_SETS } from './spine/diagnosis.js';
import { pagingQueryFields } from './request-fields.js';
import { DEFAULT_BASE_CONFIG } from './study.js';

/**
 * The HTTP contract of a study and its set-up (docs/api.md "Studies and their setup"): what the browser sends, as
 * the server validates it, and what the server answers, as the browser reads it. Staff and roles:
 * study-staff-contract.ts; the study's CRFs: study-crf-contract.ts.
 */

/** The patient fields a study configures, in the order the patient dialog shows them. */
export const BASE_FIELD_NAMES = DEFAULT_BASE_CONFIG.map((f) => f.name) as [BaseFieldName, ...BaseFieldName[]];
export type BaseFieldName = (typeof DEFAULT_BASE_CONFIG)[number]['name'];

const doubtFlagSchema = z.enum(['0', '1']);

/** 测试 until a manager's 上线, then 生产 (docs/lifecycle.md): what a study's data counts as. */
export const STUDY_MODES = ['test', 'production'] as const;
export type StudyMode = (typeof STUDY_MODES)[number];
export const studyModeSchema = z.enum(STUDY_MODES);
/** A stored mode read as one of the two; anything else is 测试 (the column's default). */
export const studyModeOf = (value: unknown): StudyMode => (value === 'production' ? 'production' : 'test');

/** 上线: the messages of a go-live. */
export const GOLIVE_MSG = {
  codeMismatch: '项目编号不一致',
  alreadyLive: '项目已上线',
  reasonRequired: '请填写上线原因',
  done: '上线成功',
} as const;
export const serialScopeSchema = z.enum(['study', 'site']);
export type SerialScope = z.infer<typeof serialScopeSchema>;

// ---- Requests ----

export const studyListQuerySchema = z.object({ ...pagingQueryFields, studyName: z.string().trim().optional() });
export const studyManageListQuerySchema = z.object({
  ...pagingQueryFields,
  studyName: z.string().trim().optional(),
  status: z.coerce.number().int().min(0).max(1).optional(),
});

export const studyDoubtBodySchema = z.object({ studyId: rowIdSchema, doubt: doubtFlagSchema });

export const followTriggerInputSchema = z.object({
  enabled: z.boolean(),
  crfId: rowIdSchema.nullable(),
  itemName: z.string().max(100).nullable(),
  offsetDays: z.number().int().min(-3650).max(3650).default(0),
});

const baseConfigFieldInputSchema = z.object({
  name: z.enum(BASE_FIELD_NAMES),
  header: z.string().trim().min(1).max(20),
  display: z.boolean(),
  required: z.boolean(),
});

const studyFields = {
  studyName: z.string({ error: '请输入项目名称' }).trim().min(1, '请输入项目名称').max(100, '项目名称不可超过100字符'),
  studyCode: z
    .string({ error: '请输入项目编号' })
    .trim()
    .min(1, '请输入项目编号')
    .max(50)
    .regex(/^[A-Za-z0-9_-]+$/, '项目编号只能包含字母、数字、_ 和 -'),
  description: z.string().max(2000).optional(),
  principal: z.string().trim().max(50).optional(),
  status: z.union([z.literal(0), z.literal(1)]).optional(),
  doubt: doubtFlagSchema.optional(),
  /** IANA zone of the study's staff; "today", date defaults and shown times are in it. */
  timeZone: z.string().max(64).refine(isTimeZone, '时区无效，请选择列表中的时区').optional(),
};

export const studyCreateBodySchema = z.object({
  ...studyFields,
  diseases: z
    .array(
      z.object({
        diseaseName: z.string().trim().min(1).max(100),
        diseaseCode: z.string().trim().min(1).max(50),
      }),
    )
    .max(50)
    .optional(),
});
export type StudyCreateBody = z.input<typeof studyCreateBodySchema>;

export const studyUpdateBodySchema = z.object({
  id: rowIdSchema,
  ...studyFields,
  studyName: studyFields.studyName.optional(),
  studyCode: studyFields.studyCode.optional(),
  multiDisease: z.boolean().optional(),
  displayCrfColumn: z.array(z.string().max(100)).max(50).optional(),
  signConfig: z.object({ enabled: z.boolean(), meaning: z.string().max(200) }).optional(),
  followTrigger: followTriggerInputSchema.optional(),
  baseConfig: z.array(baseConfigFieldInputSchema).max(20).optional(),
  /** 入组目标: patients to enrol (null clears it), optionally by a date. */
  enrolmentTarget: z
    .number()
    .int()
    .min(1, '入组目标至少为1例')
    .max(1_000_000, '入组目标不可超过1000000例')
    .nullable()
    .optional(),
  enrolmentTargetDate: z.string().refine(isDateString, '日期格式应为 yyyy-MM-dd').nullable().optional(),
  /** 脊柱诊断分级标准: the bands the manual spine measures are diagnosed by (docs/spine-tools.md). */
  spineBandSet: z.enum(SPINE_BAND_SETS, { error: '脊柱诊断分级标准无效' }).optional(),
  /** Why the settings change: kept on the change's audit rows. */
  reason: z.string().trim().max(500).optional(),
});
export type StudyUpdateBody = z.input<typeof studyUpdateBodySchema>;

export const serialNumberEnableBodySchema = z.object({
  studyId: rowIdSchema,
  prefix: z
    .string()
    .trim()
    .max(20)
    .regex(/^[A-Za-z0-9_-]*$/, '编号前缀只能包含字母、数字、_ 和 -')
    .default(''),
  digits: z.number().int().min(1).max(10).default(4),
  scope: serialScopeSchema.default('study'),
});
export type SerialNumberEnableBody = z.input<typeof serialNumberEnableBodySchema>;

/** A body naming only its study. */
export const studyIdBodySchema = z.object({ studyId: rowIdSchema });

/** POST /api/business/study/golive: the study's code typed again to confirm, and why. */
export const studyGoLiveBodySchema = z.object({
  studyId: rowIdSchema,
  confirmCode: z.string({ error: GOLIVE_MSG.codeMismatch }).trim().max(50),
  reason: z.string({ error: GOLIVE_MSG.reasonRequired }).trim().min(1, GOLIVE_MSG.reasonRequired).max(500),
});
export type StudyGoLiveBody = z.input<typeof studyGoLiveBodySchema>;

export const followTriggerBodySchema = followTriggerInputSchema.extend({ studyId: rowIdSchema });
export type FollowTriggerBody = z.input<typeof followTriggerBodySchema>;
export const followTriggersBodySchema = z.object({
  studyId: rowIdSchema,
  triggers: z.array(followTriggerInputSchema).max(20),
});

const stageName = z.string({ error: '请输入阶段名称' }).trim().min(1, '请输入阶段名称').max(100);
const orderNum = z.number().int().min(0).max(9999);
const stageRepeatSchema = z.union([z.literal(0), z.literal(1)]);

export const stageCreateBodySchema = z.object({
  studyId: rowIdSchema,
  parentId: z.number().int().min(0).max(MAX_ROW_ID).default(0),
  name: stageName,
  orderNum: orderNum.optional(),
});
export type StageCreateBody = z.input<typeof stageCreateBodySchema>;
export const stageUpdateBodySchema = z.object({
  id: rowIdSchema,
  name: stageName,
  orderNum: orderNum.optional(),
  parentId: z.number().int().min(0).max(MAX_ROW_ID).optional(),
});
export type StageUpdateBody = z.input<typeof stageUpdateBodySchema>;
export const stageCrfImportBodySchema = z.object({
  crfStageId: rowIdSchema,
  crfIds: z.array(rowIdSchema).min(1, '请选择表单').max(200),
  repeat: stageRepeatSchema.default(1),
});
export type StageCrfImportBody = z.input<typeof stageCrfImportBodySchema>;
export const stageCrfUpdateBodySchema = z.object({
  crfStageId: rowIdSchema,
  crfId: rowIdSchema,
  repeat: stageRepeatSchema.optional(),
  orderNum: orderNum.optional(),
});
export type StageCrfUpdateBody = z.input<typeof stageCrfUpdateBodySchema>;
export const stageCrfRemoveQuerySchema = z.object({ crfStageId: rowIdTextSchema, crfId: rowIdTextSchema });

export const multiDiseaseBodySchema = z.object({ studyId: rowIdSchema, multiDisease: z.boolean() });
const diseaseFields = {
  diseaseName: z.string({ error: '请输入病种名称' }).trim().min(1, '请输入病种名称').max(100),
  diseaseCode: z.string({ error: '请输入病种编码' }).trim().min(1, '请输入病种编码').max(50),
};
export const diseaseCreateBodySchema = z.object({ studyId: rowIdSchema, ...diseaseFields });
export type DiseaseCreateBody = z.input<typeof diseaseCreateBodySchema>;
export const diseaseUpdateBodySchema = z.object({ id: rowIdSchema, ...diseaseFields });
export type DiseaseUpdateBody = z.input<typeof diseaseUpdateBodySchema>;
export const diseaseCrfsQuerySchema = z.object({ studyDiseaseId: rowIdTextSchema });
export const diseaseCrfsBodySchema = z.object({ crfVO: z.array(rowIdSchema).max(500) });

// ---- Responses ----

export const serialNumberPatternSchema = z.object({ prefix: z.string(), digits: z.number(), scope: serialScopeSchema });
export type SerialNumberPattern = z.infer<typeof serialNumberPatternSchema>;

export const signConfigSchema = z.object({ enabled: z.boolean(), meaning: z.string() });
export type SignConfig = z.infer<typeof signConfigSchema>;

export const followTriggerSchema = z.object({
  enabled: z.boolean(),
  crfId: z.number().nullable(),
  itemName: z.string().nullable(),
  offsetDays: z.number(),
});
export type FollowTrigger = z.infer<typeof followTriggerSchema>;

/** A patient field of the study's base-info config (platform §3). */
export const baseConfigFieldSchema = z.object({
  name: z.enum(BASE_FIELD_NAMES),
  header: z.string(),
  display: z.boolean(),
  required: z.boolean(),
});
export type BaseConfigField = z.infer<typeof baseConfigFieldSchema>;

/** `crfVO`: the CRFs the disease uses, answered by the disease settings (not with the study). */
export const diseaseSchema = z.strictObject({
  id: z.number(),
  diseaseName: z.string(),
  diseaseCode: z.string(),
  crfVO: z.array(z.number()).optional(),
});
export type Disease = z.infer<typeof diseaseSchema>;

export const myStudyRoleSchema = z.strictObject({
  studyRoleId: z.number(),
  roleName: z.string(),
  permissions: z.array(z.string()),
  /** The member's own sites (分中心): where their new patients go. */
  sites: z.array(z.object({ deptId: z.number(), deptName: z.string() })),
});
export type MyStudyRole = z.infer<typeof myStudyRoleSchema>;

/** A study as its list, its page and its writes answer it. */
export const studySchema = z.strictObject({
  id: z.number(),
  studyName: z.string(),
  studyCode: z.string(),
  description: z.string(),
  principal: z.string(),
  /** 0 进行中, 1 已结束. */
  status: z.union([z.literal(0), z.literal(1)]),
  doubt: doubtFlagSchema,
  /** IANA zone: "today", date defaults and shown times are in it. */
  timeZone: z.string(),
  /** 入组目标: patients to enrol, and the date to reach it by (null: none). */
  enrolmentTarget: z.number().nullable(),
  enrolmentTargetDate: z.string().nullable(),
  /** 脊柱诊断分级标准: 'spec' (forms §9) or 'literature' (SRS–Schwab and others). */
  spineBandSet: z.enum(SPINE_BAND_SETS),
  multiDisease: z.boolean(),
  enableSerialNumber: z.boolean(),
  serialNumber: serialNumberPatternSchema,
  displayCrfColumn: z.array(z.string()),
  signConfig: signConfigSchema,
  followTrigger: followTriggerSchema,
  baseConfig: z.array(baseConfigFieldSchema),
  diseases: z.array(diseaseSchema),
  memberCount: z.number(),
  subjectCount: z.number(),
  /** The creator's name; '' when unknown. */
  creater: z.string(),
  createTime: z.string(),
  /** The caller's role in the study; null when they are not a member (a study manager reading every study). */
  myRole: myStudyRoleSchema.nullable(),
  /** 测试 or 生产 (上线); when it went live (null while in 测试). */
  mode: studyModeSchema,
  wentLiveAt: z.string().nullable(),
});
export type Study = z.infer<typeof studySchema>;

/** What a go-live purges (GET golive) or purged (POST golive): the test patients and what hangs on them. */
export const goLiveCountsSchema = z.strictObject({
  subjects: z.number(),
  crfRecords: z.number(),
  doubts: z.number(),
  randomizations: z.number(),
  followRecords: z.number(),
  files: z.number(),
  auditRows: z.number(),
});
export type GoLiveCounts = z.infer<typeof goLiveCountsSchema>;

/** GET /api/business/study/golive: the study's mode and what 上线 would purge now. */
export const goLivePreviewSchema = z.strictObject({ mode: studyModeSchema, counts: goLiveCountsSchema });
export type GoLivePreview = z.infer<typeof goLivePreviewSchema>;

/** POST /api/business/study/golive: when, and what was purged. */
export const goLiveResultSchema = z.strictObject({ wentLiveAt: z.string(), purged: goLiveCountsSchema });
export type GoLiveResult = z.infer<typeof goLiveResultSchema>;

export const serialNumberStateSchema = serialNumberPatternSchema.extend({
  enableSerialNumber: z.boolean(),
  /** The next code the pattern gives. */
  preview: z.string(),
});
export type SerialNumberState = z.infer<typeof serialNumberStateSchema>;

/** `content`: the address the code holds. */
export const studyQrSchema = z.strictObject({ qrCode: z.string(), content: z.string().optional() });
export type StudyQr = z.infer<typeof studyQrSchema>;

export const studyDiseasesSchema = z.strictObject({ multiDisease: z.boolean(), diseases: z.array(diseaseSchema) });
export type StudyDiseases = z.infer<typeof studyDiseasesSchema>;

/** A form placed in a stage: repeat 1 = single form, 0 = repeatable (forms §3). */
export const stageCrfSchema = z.strictObject({
  crfId: z.number(),
  title: z.string(),
  repeat: stageRepeatSchema,
  orderNum: z.number(),
});
export type StageCrf = z.infer<typeof stageCrfSchema>;

/** A stage on its own (its page and its writes). */
export const crfStageSummarySchema = z.strictObject({
  id: z.number(),
  parentId: z.number(),
  studyId: z.number(),
  name: z.string(),
  orderNum: z.number(),
});
export type CrfStageSummary = z.infer<typeof crfStageSummarySchema>;

/** A stage of the study's tree with its forms and its child stages (GET crf_stages; the page drops empty ones). */
export const crfStageSchema = crfStageSummarySchema.extend({
  crfs: z.array(stageCrfSchema),
  get children(): z.ZodOptional<z.ZodArray<typeof crfStageSchema>> {
    return z.array(crfStageSchema).optional();
  },
});
export type CrfStage = z.infer<typeof crfStageSchema>;
