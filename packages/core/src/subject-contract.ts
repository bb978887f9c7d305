import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';
import { baseConfigFieldSchema, diseaseSchema } from './study-contract.js';

/**
 * The HTTP contract of patients and their casebooks (docs/api.md "Subjects and data capture"): requests as the
 * server validates them, answers as the browser reads them; with the two reads the patient pages share, a
 * casebook's audit trail and the study home's figures. The patient rules themselves are in subject.ts.
 */

/** 转移中心: the messages of a site move. */
export const SITE_MOVE_MSG = {
  reasonRequired: '请填写转移原因',
  sameSite: '患者已在该中心',
  unknownSite: '所选中心不存在',
} as const;

/** A casebook's state: 0 在组, 1 完成, 2 退出. */
const subjectStateSchema = z.union([z.literal(0), z.literal(1), z.literal(2)]);
export type SubjectState = z.infer<typeof subjectStateSchema>;

// ---- Requests ----

const subjectFields = {
  identificationCode: z.string().trim().max(50).nullish(),
  subjectName: z.string({ error: '请输入患者姓名' }).trim().min(1, '请输入患者姓名').max(50),
  gender: z.union([z.literal(0), z.literal(1)], { error: '请选择患者性别' }),
  birth: z.string().max(10).nullish(),
  mobile: z.string().max(20).nullish(),
  idNumber: z.string().max(30).nullish(),
  diseaseCode: z.string({ error: '请选择病种' }).trim().min(1, '请选择病种').max(50),
  deptId: rowIdSchema.nullish(),
};

export const subjectCreateBodySchema = z.object({
  studyId: rowIdSchema,
  ...subjectFields,
  /**
   * A test patient (测试数据) of a production study, entered against the drafts; purged like all test data. In a
   * study in 测试 every new patient is a test patient whatever this says.
   */
  test: z.boolean().optional(),
});
export type SubjectCreateBody = z.input<typeof subjectCreateBodySchema>;
/** Partial: a field left out of the body keeps its stored value. */
export const subjectUpdateBodySchema = z.object({ id: rowIdSchema, ...z.object(subjectFields).partial().shape });
export type SubjectUpdateBody = z.input<typeof subjectUpdateBodySchema>;

export const subjectCodeQuerySchema = studyIdQuerySchema.extend({ identificationCode: z.string().trim().min(1) });

export const subjectSiteMoveBodySchema = z.object({
  subjectId: rowIdSchema,
  deptId: rowIdSchema,
  reason: z.string({ error: SITE_MOVE_MSG.reasonRequired }).trim().min(1, SITE_MOVE_MSG.reasonRequired).max(200),
});
export type SubjectSiteMoveBody = z.input<typeof subjectSiteMoveBodySchema>;

export const subjectRecordIdQuerySchema = z.object({ subjectRecordId: rowIdTextSchema });
/** GET operates: a page of a casebook's audit trail. */
export const subjectOperatesQuerySchema = z.object({ subjectRecordId: rowIdTextSchema, ...pagingQueryFields });
export type SubjectOperatesQuery = z.output<typeof subjectOperatesQuerySchema>;

export const subjectSignBodySchema = z.object({
  subjectRecordId: rowIdSchema,
  password: z.string().min(1, '请输入密码').max(100),
  meaning: z.string().max(200).optional(),
});

const dateText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();
const subjectRecordFilterFields = {
  identificationCode: z.string().trim().optional(),
  subjectName: z.string().trim().optional(),
  diseaseCode: z.string().trim().optional(),
  state: z.coerce.number().int().min(0).max(2).optional(),
  beginDate: dateText,
  endDate: dateText,
  deleted: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
};
/** The patient list's filters, as the server reads them. */
export const subjectRecordFilterSchema = z.object(subjectRecordFilterFields);
export type SubjectRecordFilter = z.infer<typeof subjectRecordFilterSchema>;

/** The v3 list is a POST: its filters and paging in the body. */
export const subjectRecordListBodySchema = z.object({
  studyId: rowIdSchema,
  ...pagingQueryFields,
  ...subjectRecordFilterFields,
});
export const subjectRecordListQuerySchema = studyIdQuerySchema.extend({
  ...pagingQueryFields,
  ...subjectRecordFilterFields,
});

export const subjectRecordStateBodySchema = z.object({
  subjectRecordId: rowIdSchema,
  state: subjectStateSchema,
  reason: z.string().max(500).optional(),
});
export type SubjectRecordStateBody = z.input<typeof subjectRecordStateBodySchema>;

export const subjectRecordDeleteQuerySchema = z.object({
  subjectRecordId: rowIdTextSchema,
  reason: z.string({ error: '请填写删除原因' }).trim().min(1, '请填写删除原因').max(500),
});
export const subjectRecordRestoreBodySchema = z.object({
  subjectRecordId: rowIdSchema,
  reason: z.string().trim().min(1, '请填写恢复原因').max(500),
});

// ---- Responses ----

/**
 * A patient (SUBJ-03) as its page, its writes and the list answer it. subjectName, birth, mobile and idNumber are
 * masked when `identifiersMasked` (no 查看患者身份信息 permission); `age` is from the clear birth date.
 */
export const subjectSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  subjectRecordId: z.number(),
  identificationCode: z.string(),
  subjectName: z.string(),
  gender: z.number(),
  birth: z.string().nullable(),
  age: z.number().nullable(),
  mobile: z.string().nullable(),
  /** 身份证号. */
  idNumber: z.string().nullable().optional(),
  identifiersMasked: z.boolean().optional(),
  diseaseCode: z.string(),
  openId: z.string().nullable(),
  qrCode: z.string().nullable(),
  deptId: z.number().nullable(),
  deptName: z.string().nullable(),
  state: subjectStateSchema,
  creater: z.string().nullable(),
  createTime: z.string(),
  /** Set on a casebook deleted (可恢复). */
  deletedAt: z.string().nullable().optional(),
  itemDatas: z.array(z.object({ itemName: z.string(), itemValue: z.unknown(), units: z.string() })),
  /** 已紧急揭盲 (issue 15): the patient's arm was disclosed in an emergency; set once, never cleared. */
  emergencyUnblinded: z.boolean().optional(),
  /** 测试数据: enrolled while the study was in 测试, or entered as a test patient; purged at 上线. */
  test: z.boolean(),
});
export type Subject = z.infer<typeof subjectSchema>;

/** 表单进度: of the forms the patient is expected to fill, how many are submitted, started, queried. */
export const crfStatesSchema = z.strictObject({
  total: z.number(),
  submitted: z.number(),
  incomplete: z.number(),
  doubt: z.number(),
});
export type CrfStates = z.infer<typeof crfStatesSchema>;

/** A row of the patient list: the patient, its form progress and the study's extra CRF columns. */
export const subjectRecordRowSchema = subjectSchema.extend({
  crfStates: crfStatesSchema,
  columns: z.record(z.string(), z.unknown()),
});
export type SubjectRecordRow = z.infer<typeof subjectRecordRowSchema>;

export const recordColumnSchema = z.strictObject({
  key: z.string(),
  title: z.string(),
  source: z.enum(['base', 'crf']),
  width: z.number(),
});
export type RecordColumn = z.infer<typeof recordColumnSchema>;

/** GET /api/v2/business/subject/crf: what the patient dialog is built from (SUBJ-20). */
export const subjectFormModelSchema = z.strictObject({
  baseConfig: z.array(baseConfigFieldSchema),
  diseases: z.array(diseaseSchema),
  enableSerialNumber: z.boolean(),
  /** The code the next patient gets when serial numbers are on. */
  serialPreview: z.string().nullable(),
});
export type SubjectFormModel = z.infer<typeof subjectFormModelSchema>;

/** A stored file a value refers to (`url`: an object of the external mode, read at that address). */
const fileLinkSchema = z.object({ fileKey: z.string(), fileName: z.string(), url: z.string().optional() });

/**
 * One row of a casebook's audit trail (GET operates), in the server's words (action name, form, item title, old and
 * new text) with the raw codes beside them.
 */
export const auditEventSchema = z.object({
  id: z.number(),
  action: z.string(),
  actionName: z.string(),
  subjectRecordId: z.number().nullable(),
  crfDataRecordId: z.number().nullable(),
  crfId: z.number().nullable(),
  crfTitle: z.string().nullable(),
  crfVersion: z.number().nullable(),
  itemName: z.string().nullable(),
  itemTitle: z.string(),
  oldValue: z.unknown(),
  newValue: z.unknown(),
  oldText: z.string(),
  newText: z.string(),
  oldFiles: z.array(fileLinkSchema),
  newFiles: z.array(fileLinkSchema),
  reason: z.string().nullable(),
  userName: z.string(),
  createTime: z.string(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

/** GET /api/business/index: the study home's figures (STUDY-09), of the forms and sites the caller may see. */
export const studyIndexSchema = z.strictObject({
  subjects: z.strictObject({
    total: z.number(),
    active: z.number(),
    completed: z.number(),
    withdrawn: z.number(),
    thisMonth: z.number(),
  }),
  forms: z.strictObject({ incomplete: z.number(), submitted: z.number(), doubt: z.number() }),
  doubts: z.strictObject({ open: z.number(), replied: z.number(), closed: z.number() }),
  enrolment: z.array(z.strictObject({ month: z.string(), count: z.number() })),
  /** Patients enrolled up to the end of each month with enrolment (the last twelve such months). */
  enrolmentCumulative: z.array(z.strictObject({ month: z.string(), total: z.number() })),
  /** The study's enrolment target; null while none is stored. */
  enrolmentTarget: z.number().nullable(),
  /** The date the target is to be reached by (YYYY-MM-DD), or null. */
  enrolmentTargetDate: z.string().nullable(),
  /** Forms by state per CRF the caller may view. */
  formsByCrf: z.array(
    z.strictObject({ crfId: z.number(), title: z.string(), incomplete: z.number(), submitted: z.number() }),
  ),
  /** Queries raised and closed per week (Monday first, the study's zone), the last twelve weeks. */
  queriesWeekly: z.array(z.strictObject({ week: z.string(), opened: z.number(), closed: z.number() })),
  /** Per planned visit: patients done on time, late, missed (window passed), lost, not yet judged. */
  followCompliance: z.array(
    z.strictObject({
      visitName: z.string(),
      onTime: z.number(),
      late: z.number(),
      overdue: z.number(),
      lost: z.number(),
      pending: z.number(),
    }),
  ),
  /** 缺失原因: items marked missing, in all and per code (the study's codes, then removed ones still in use). */
  missingMarks: z
    .strictObject({
      total: z.number(),
      byCode: z.array(z.strictObject({ code: z.string(), label: z.string(), count: z.number() })),
    })
    .optional(),
});
export type StudyIndex = z.infer<typeof studyIndexSchema>;
