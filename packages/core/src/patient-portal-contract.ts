import { z } from 'zod';
import { crfDefinitionValueSchema, formValuesSchema } from './crf-record-contract.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';

/**
 * The HTTP contract of the patient's own calls (the public /api/ignore/patient routes, a patient session in
 * `X-Patient-Token`; docs/patient-portal.md): binding with a code, the home page, the patient-reported forms,
 * signing out, and 在线咨询's questions (their body is consult.ts's). The staff side is wechat-contract.ts's.
 */

// ---- Requests ----

export const patientBindBodySchema = z.object({
  studyId: rowIdSchema,
  code: z.string().trim().min(1, '请输入绑定码').max(20),
  /** The official account's OAuth code, where a real identity provider is in place. */
  authCode: z.string().max(200).nullish(),
});
export type PatientBindBody = z.input<typeof patientBindBodySchema>;

export const patientFormParamsSchema = z.object({ crfId: rowIdTextSchema });

export const patientFormSaveBodySchema = z.object({
  values: z.record(z.string().max(200), z.unknown()),
  submit: z.boolean().default(false),
  /** The record and version the patient read: a stale save is refused as on the staff side. */
  crfDataRecordId: rowIdSchema.nullish(),
  version: z.number().int().min(1).max(MAX_ROW_ID).nullish(),
});
export type PatientFormSaveBody = z.input<typeof patientFormSaveBodySchema>;

// ---- Responses ----

/** The patient session a binding opens; the study's name comes with it (no public call tells it by id alone). */
export const patientBindResultSchema = z.strictObject({
  token: z.string(),
  expiresAt: z.string(),
  studyName: z.string(),
});
export type PatientBindResult = z.infer<typeof patientBindResultSchema>;

/** A form's progress as the patient sees it: 0 待填写, 1 填写中, 2 已提交. */
const patientFormStateSchema = z.union([z.literal(0), z.literal(1), z.literal(2)]);
export type PatientFormState = z.infer<typeof patientFormStateSchema>;

/** An assigned patient-reported form. */
export const patientFormItemSchema = z.strictObject({
  crfId: z.number(),
  title: z.string(),
  state: patientFormStateSchema,
  updateTime: z.string().nullable(),
  /** The follow-up visit the form is due for, when one is open. */
  visitName: z.string().nullable(),
});
export type PatientFormItem = z.infer<typeof patientFormItemSchema>;

/** The patient's home: the study, their own code and masked name, the greeting, the disease note and the forms. */
export const patientHomeSchema = z.strictObject({
  studyId: z.number(),
  studyName: z.string(),
  identificationCode: z.string(),
  subjectName: z.string(),
  welcome: z.string(),
  disease: z.strictObject({ title: z.string(), content: z.string() }).nullable(),
  forms: z.array(patientFormItemSchema),
});
export type PatientHome = z.infer<typeof patientHomeSchema>;

/** One assigned form: its definition, the patient's values and whether they may still change them. */
export const patientFormSchema = z.strictObject({
  crf: z.strictObject({ id: z.number(), title: z.string(), definition: crfDefinitionValueSchema }),
  visit: z.strictObject({ visitName: z.string(), plannedDate: z.string() }).nullable(),
  record: z.strictObject({ crfDataRecordId: z.number(), version: z.number(), values: formValuesSchema }).nullable(),
  state: patientFormStateSchema,
  editable: z.boolean(),
  /** The defaults of a new record, or null when a record is open. */
  initialValues: formValuesSchema.nullable(),
  /** What form("标题", "item") reads, by form title: the patient's own patient-reported forms only. */
  formValues: z.record(z.string(), formValuesSchema),
  /** The study's IANA zone. */
  timeZone: z.string(),
});
export type PatientForm = z.infer<typeof patientFormSchema>;

export const patientFormSaveResultSchema = z.strictObject({
  crfDataRecordId: z.number(),
  version: z.number(),
  state: patientFormStateSchema,
  changedItems: z.array(z.string()),
});
export type PatientFormSaveResult = z.infer<typeof patientFormSaveResultSchema>;

/** One of the patient's own questions (docs/content.md, Consultation): 0 待回复, 1 已回复, 2 已关闭. */
export const patientConsultSchema = z.strictObject({
  id: z.number(),
  title: z.string(),
  question: z.string(),
  state: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  answer: z.string().nullable(),
  answeredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type PatientConsult = z.infer<typeof patientConsultSchema>;

export const patientConsultAskedSchema = z.strictObject({ id: z.number() });
export type PatientConsultAsked = z.infer<typeof patientConsultAskedSchema>;
