import { z } from 'zod';
import { rowIdSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of the patient side's staff calls (公众号设置, 公众号用户, 病种宣教; docs/patient-portal.md):
 * the binding settings and the patient-reported CRFs, the patients with their binding, a one-time binding code,
 * unbinding, and the education text of each disease. The patient's own calls are patient-portal-contract.ts's.
 */

// ---- Requests ----

export const portalSettingsBodySchema = z.object({
  studyId: rowIdSchema,
  bindEnabled: z.boolean(),
  appId: z
    .string()
    .trim()
    .max(40)
    .regex(/^(wx[0-9a-f]{16})?$/, 'AppID格式不正确')
    .nullish(),
  welcome: z.string().max(500).nullish(),
  proCrfIds: z.array(rowIdSchema).max(200),
});
export type PortalSettingsBody = z.input<typeof portalSettingsBodySchema>;

export const wxUserQuerySchema = studyIdQuerySchema.extend({
  bound: z.enum(['true', 'false']).optional(),
  keyword: z.string().trim().max(50).optional(),
  ...pagingQueryFields,
});
export type WxUserQuery = z.output<typeof wxUserQuerySchema>;

/** The patient a binding code is issued for, or whose binding ends. */
export const wechatSubjectBodySchema = z.object({ studyId: rowIdSchema, subjectId: rowIdSchema });
export type WechatSubjectBody = z.input<typeof wechatSubjectBodySchema>;

export const diseaseNoteBodySchema = z.object({
  studyId: rowIdSchema,
  diseaseCode: z.string().trim().min(1).max(50),
  title: z.string().trim().min(1, '请输入标题').max(100),
  content: z.string().max(5000),
});
export type DiseaseNoteBody = z.input<typeof diseaseNoteBodySchema>;

// ---- Responses ----

export const portalSettingsSchema = z.strictObject({
  bindEnabled: z.boolean(),
  /** Empty when the study names no official account. */
  appId: z.string(),
  welcome: z.string(),
  proCrfIds: z.array(z.number()),
  /** The study's CRFs, to choose the patient-reported ones from. */
  crfs: z.array(z.strictObject({ id: z.number(), title: z.string() })),
  /** Where a patient binds: the page the study's QR code opens. */
  bindPath: z.string(),
  /** The identity provider in place (the development one, or the official account's OAuth). */
  provider: z.string(),
});
export type PortalSettings = z.infer<typeof portalSettingsSchema>;

/** A patient of the study with their binding; the name masked without 查看患者身份信息. */
export const wxUserRowSchema = z.strictObject({
  subjectId: z.number(),
  subjectRecordId: z.number(),
  identificationCode: z.string(),
  subjectName: z.string(),
  diseaseCode: z.string(),
  bound: z.boolean(),
  /** Shortened: the account's id names a person outside the study. */
  openId: z.string().nullable(),
  boundAt: z.string().nullable(),
  /** When the patient's live binding code, if any, expires. */
  codeExpiresAt: z.string().nullable(),
});
export type WxUserRow = z.infer<typeof wxUserRowSchema>;

export const wxUserPageSchema = z.strictObject({ list: z.array(wxUserRowSchema), total: z.number() });

/** A one-time binding code: shown once, the server keeps only its hash. */
export const bindCodeSchema = z.strictObject({ code: z.string(), expiresAt: z.string(), bindPath: z.string() });
export type BindCode = z.infer<typeof bindCodeSchema>;

/** A disease of the study with the education text its bound patients read (empty until written). */
export const diseaseNoteSchema = z.strictObject({
  diseaseCode: z.string(),
  diseaseName: z.string(),
  title: z.string(),
  content: z.string(),
  updateTime: z.string().nullable(),
});
export type DiseaseNote = z.infer<typeof diseaseNoteSchema>;
