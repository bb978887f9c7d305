import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of patient-facing content and medical records (docs/content.md): the knowledge base's articles
 * (staff and public) and types, content pictures, doctors (医生管理), the study's hospitals (项目介绍) and medical
 * records (病历管理). Requests as the server validates them, answers as the browser reads them.
 */

// ---- Requests ----

/** A stored file or content picture, by its key. */
const fileKeySchema = z.string().regex(/^[0-9a-f]{32}$/, '文件不存在');
const keywordSchema = z.string().max(50).optional();
const sortSchema = z.number().int().min(0).max(9999).optional();
const optionalText = (max: number, label: string) =>
  z.string().trim().max(max, `${label}不能超过${max}个字符`).nullish();

export const ARTICLE_STATUSES = ['draft', 'published'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

export const knowledgeTypeBodySchema = z.object({
  name: z.string().trim().min(1, '请输入分类名称').max(30, '分类名称不能超过30个字符'),
  sort: sortSchema,
});
export type KnowledgeTypeBody = z.input<typeof knowledgeTypeBodySchema>;

/** A new or changed article; its HTML is sanitized by the server. */
export const articleBodySchema = z.object({
  studyId: rowIdSchema,
  /** true: a platform-wide article (every study's patients read it). */
  platform: z.boolean().default(false),
  typeId: rowIdSchema,
  title: z.string().trim().min(1, '请输入标题').max(100, '标题不能超过100个字符'),
  summary: z.string().max(200, '摘要不能超过200个字符').nullish(),
  coverKey: fileKeySchema.nullish(),
  content: z.string().max(200_000, '文章内容过长'),
  status: z.enum(ARTICLE_STATUSES),
});
export type ArticleBody = z.input<typeof articleBodySchema>;

/** GET /api/v1/knowledges: the study's articles and the platform's, drafts included. */
export const knowledgeListQuerySchema = studyIdQuerySchema.extend({
  typeId: rowIdTextSchema.optional(),
  status: z.enum(ARTICLE_STATUSES).optional(),
  keyword: keywordSchema,
  ...pagingQueryFields,
});
export type KnowledgeListQuery = z.output<typeof knowledgeListQuerySchema>;

/** GET /api/ignore/knowledges: published articles, of one study (and the platform's) or the platform's alone. */
export const publicKnowledgeListQuerySchema = z.object({
  studyId: rowIdTextSchema.optional(),
  typeId: rowIdTextSchema.optional(),
  keyword: keywordSchema,
  ...pagingQueryFields,
});
export type PublicKnowledgeListQuery = z.output<typeof publicKnowledgeListQuerySchema>;

/** GET /api/ignore/content/image/{fileKey}: a content picture, public. */
export const contentImageParamsSchema = z.object({ fileKey: fileKeySchema });

export const expertBodySchema = z.object({
  studyId: rowIdSchema,
  name: z.string().trim().min(1, '请输入姓名').max(30, '姓名不能超过30个字符'),
  photoKey: z
    .string()
    .regex(/^[0-9a-f]{32}$/, '照片不存在')
    .nullish(),
  title: optionalText(30, '职称'),
  hospital: optionalText(60, '医院'),
  department: optionalText(60, '科室'),
  specialty: optionalText(200, '擅长'),
  introduction: optionalText(5000, '简介'),
  sort: sortSchema,
});
export type ExpertBody = z.input<typeof expertBodySchema>;

/** The study's doctors, for its staff (/api/v1/experts) and its patients (/api/ignore/experts). */
export const expertListQuerySchema = studyIdQuerySchema.extend({ keyword: keywordSchema, ...pagingQueryFields });
export type ExpertListQuery = z.output<typeof expertListQuerySchema>;

export const hospitalBodySchema = z.object({
  studyId: rowIdSchema,
  name: z.string().trim().min(1, '请输入医院名称').max(60, '医院名称不能超过60个字符'),
  introduction: optionalText(5000, '介绍'),
  address: optionalText(200, '地址'),
  contact: optionalText(30, '联系人'),
  phone: optionalText(30, '联系电话'),
  sort: sortSchema,
});
export type HospitalBody = z.input<typeof hospitalBodySchema>;

export const MEDICAL_CATEGORIES = ['入院记录', '出院小结', '手术记录', '检查报告', '病程记录', '其他'] as const;
export type MedicalCategory = (typeof MEDICAL_CATEGORIES)[number];

const medicalReasonSchema = z.string().trim().min(1, '请输入修改原因').max(200, '原因不能超过200个字符');

export const medicalBodySchema = z.object({
  studyId: rowIdSchema,
  subjectId: rowIdSchema,
  title: z.string().trim().min(1, '请输入标题').max(60, '标题不能超过60个字符'),
  category: z.enum(MEDICAL_CATEGORIES, { error: '请选择类别' }),
  visitDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, '日期格式应为YYYY-MM-DD')
    .nullish(),
  hospital: z.string().trim().max(60, '医院不能超过60个字符').nullish(),
  note: z.string().max(20_000, '记录内容过长').nullish(),
  files: z
    .array(z.object({ fileKey: fileKeySchema, fileName: z.string().min(1).max(255) }))
    .max(50, '文件不能超过50个')
    .default([]),
});
export type MedicalBody = z.input<typeof medicalBodySchema>;

/** An edit names its reason: the audit trail keeps it. */
export const medicalEditBodySchema = medicalBodySchema.extend({ reason: medicalReasonSchema });
export type MedicalEditBody = z.input<typeof medicalEditBodySchema>;

/** DELETE /api/v1/medical/{id}?studyId&reason */
export const medicalDeleteQuerySchema = studyIdQuerySchema.extend({ reason: medicalReasonSchema });
export type MedicalDeleteQuery = z.output<typeof medicalDeleteQuerySchema>;

/** PUT /api/v1/medical/crf: the CRF record a medical record is the source document of, or none. */
export const medicalLinkCrfBodySchema = z.object({
  studyId: rowIdSchema,
  id: rowIdSchema,
  crfDataRecordId: rowIdSchema.nullable(),
  reason: z.string().trim().max(200, '原因不能超过200个字符').nullish(),
});
export type MedicalLinkCrfBody = z.input<typeof medicalLinkCrfBodySchema>;

export const medicalListQuerySchema = studyIdQuerySchema.extend({
  subjectId: rowIdTextSchema.optional(),
  crfDataRecordId: rowIdTextSchema.optional(),
  keyword: keywordSchema,
  ...pagingQueryFields,
});
export type MedicalListQuery = z.output<typeof medicalListQuerySchema>;

/** GET /api/v1/medical/crfs: the patient's CRF records a medical record can be linked to. */
export const medicalLinkableQuerySchema = studyIdQuerySchema.extend({ subjectId: rowIdTextSchema });

/** GET /api/v1/medical/{id}/file?studyId&fileKey */
export const medicalFileQuerySchema = studyIdQuerySchema.extend({ fileKey: fileKeySchema });

// ---- Responses ----

export const knowledgeTypeSchema = z.strictObject({ id: z.number(), name: z.string(), sort: z.number() });
export type KnowledgeType = z.infer<typeof knowledgeTypeSchema>;

/** An article; the list leaves out its content, one article carries it. */
export const articleSchema = z.strictObject({
  id: z.number(),
  /** null for a platform-wide article. */
  studyId: z.number().nullable(),
  platform: z.boolean(),
  typeId: z.number(),
  typeName: z.string().nullable(),
  title: z.string(),
  summary: z.string().nullable(),
  coverKey: z.string().nullable(),
  coverUrl: z.string().nullable(),
  status: z.enum(ARTICLE_STATUSES),
  publishTime: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
  content: z.string().optional(),
});
export type Article = z.infer<typeof articleSchema>;

/** A stored content picture and its public URL. */
export const contentImageSchema = z.strictObject({ fileKey: z.string(), url: z.string(), fileName: z.string() });
export type ContentImage = z.infer<typeof contentImageSchema>;

export const expertSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  name: z.string(),
  photoKey: z.string().nullable(),
  photoUrl: z.string().nullable(),
  title: z.string().nullable(),
  hospital: z.string().nullable(),
  department: z.string().nullable(),
  specialty: z.string().nullable(),
  introduction: z.string().nullable(),
  sort: z.number(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type Expert = z.infer<typeof expertSchema>;

export const hospitalSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  name: z.string(),
  introduction: z.string().nullable(),
  address: z.string().nullable(),
  contact: z.string().nullable(),
  phone: z.string().nullable(),
  sort: z.number(),
  updateTime: z.string(),
});
export type Hospital = z.infer<typeof hospitalSchema>;

export const medicalFileSchema = z.strictObject({ fileKey: z.string(), fileName: z.string() });
export type MedicalFile = z.infer<typeof medicalFileSchema>;

/** A medical record; the patient's name is masked for a caller without 查看患者身份信息. */
export const medicalRecordSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  subjectId: z.number(),
  identificationCode: z.string().nullable(),
  subjectName: z.string().nullable(),
  title: z.string(),
  category: z.enum(MEDICAL_CATEGORIES),
  visitDate: z.string().nullable(),
  hospital: z.string().nullable(),
  note: z.string().nullable(),
  files: z.array(medicalFileSchema),
  crfDataRecordId: z.number().nullable(),
  /** The linked CRF, null (with its title) when the caller may not view it. */
  crfId: z.number().nullable(),
  crfTitle: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type MedicalRecord = z.infer<typeof medicalRecordSchema>;

/** A live CRF record of the patient that the caller may view. */
export const linkableRecordSchema = z.strictObject({
  crfDataRecordId: z.number(),
  crfId: z.number(),
  crfTitle: z.string(),
  createTime: z.string(),
});
export type LinkableRecord = z.infer<typeof linkableRecordSchema>;
