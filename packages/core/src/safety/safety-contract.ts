import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { pagingQueryFields, studyIdQuerySchema } from '../request-fields.js';

/** The HTTP contract of the safety module (不良事件 / SAE reports, issue 37). */

export const SAE_STATES = ['pending', 'submitted', 'withdrawn'] as const;
export type SaeState = (typeof SAE_STATES)[number];
export const SAE_STATE_NAMES: Record<SaeState, string> = {
  pending: '待提交',
  submitted: '已提交',
  withdrawn: '已撤销',
};
export const SAE_KIND_NAMES = { initial: '首次报告', followup: '随访报告' } as const;
export type SaeKind = keyof typeof SAE_KIND_NAMES;

export const SAFETY_MSG = {
  moduleOn: '不良事件模块已开启',
  moduleOff: '不良事件模块已关闭',
  submitted: '报告已提交',
  followupCreated: '随访报告已创建',
  reportNotFound: 'SAE报告不存在',
  notPending: '该报告不是待提交状态',
  notLatest: '只能对最新版本的已提交报告创建随访报告',
  moduleDisabled: '项目未开启不良事件模块',
} as const;

// ---- Requests ----

/** PUT /api/business/safety/module. */
export const safetyModuleBodySchema = z.object({ studyId: rowIdSchema, enabled: z.boolean() });

/** GET /api/business/safety/saes. */
export const saeListQuerySchema = studyIdQuerySchema.extend({
  ...pagingQueryFields,
  state: z.enum(SAE_STATES).optional(),
});
export type SaeListQuery = z.output<typeof saeListQuerySchema>;

/** POST /api/business/safety/sae/submit and /sae/followup. */
export const saeReportBodySchema = z.object({ studyId: rowIdSchema, saeReportId: rowIdSchema });

/**
 * GET /api/business/safety/report/export: one report version as the NMPA 严重不良事件报告表 (docx, or the same
 * converted to pdf) or the CIOMS-I-like English form (cioms, docx).
 */
export const SAE_EXPORT_FORMATS = ['docx', 'pdf', 'cioms'] as const;
export type SaeExportFormat = (typeof SAE_EXPORT_FORMATS)[number];
export const saeExportQuerySchema = studyIdQuerySchema.extend({
  reportId: rowIdTextSchema,
  format: z.enum(SAE_EXPORT_FORMATS).default('docx'),
});

// ---- Responses ----

export const safetyModuleSchema = z.strictObject({ enabled: z.boolean(), aeCrfId: z.number().nullable() });
export type SafetyModule = z.infer<typeof safetyModuleSchema>;

export const saeReportSchema = z.strictObject({
  saeReportId: z.number(),
  studyId: z.number(),
  subjectRecordId: z.number(),
  crfDataRecordId: z.number(),
  crfId: z.number(),
  identificationCode: z.string(),
  siteId: z.number().nullable(),
  siteName: z.string().nullable(),
  /** The AE record's term (不良事件名称) and CTCAE grade code, as stored now. */
  term: z.string(),
  grade: z.string(),
  version: z.number(),
  kind: z.enum(['initial', 'followup']),
  state: z.enum(SAE_STATES),
  awareAt: z.string(),
  deadlineAt: z.string(),
  /** The clock at the server's now (core saeClock): running, overdue, submitted, submittedLate. */
  clockState: z.enum(['running', 'overdue', 'submitted', 'submittedLate']),
  remainingMs: z.number(),
  /** 剩余 X小时Y分 / 已超时 Z小时 / 已按时提交 / 超时提交. */
  clockText: z.string(),
  submittedAt: z.string().nullable(),
  submittedByName: z.string().nullable(),
  createdAt: z.string(),
});
export type SaeReport = z.infer<typeof saeReportSchema>;

export const saeListSchema = z.strictObject({ list: z.array(saeReportSchema), total: z.number() });
export const saeCountSchema = z.strictObject({ pending: z.number() });
