import { z } from 'zod';
import { crfOptionSchema, type CrfDefinition } from './crf/crf-definition.schema.js';
import { missingMarksSchema } from './crf/missing-codes.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';
import { SPINE_BAND_SETS } from './spine/diagnosis.js';
import { auditEventSchema, subjectSchema } from './subject-contract.js';

/**
 * The HTTP contract of the CRF page (docs/api.md "CRF page"): a casebook's menu, a form's detail, saving and
 * submitting, a repeatable form's records, deleting one, SDV, the overview, a record's history and its audit
 * export, the print template's calls, and the answers the page reads from the patient and signature calls.
 */

// ---- Requests ----

/** `/:subjectRecordId`: the casebook a CRF page call is about. */
export const subjectRecordIdParamSchema = z.object({ subjectRecordId: rowIdTextSchema });

export const crfDetailQuerySchema = z.object({ crfId: rowIdTextSchema, crfDataRecordId: rowIdTextSchema.optional() });
export const crfDataListQuerySchema = z.object({ crfId: rowIdTextSchema });
export const crfOverviewQuerySchema = z.object({
  crfId: rowIdTextSchema.optional(),
  crfDataRecordId: rowIdTextSchema.optional(),
});

/** CRF-25/CRF-26: the record and the reason, in the query. */
export const crfDataDeleteQuerySchema = z.object({
  crfDataRecordId: rowIdTextSchema,
  reason: z.string({ error: '请填写删除原因' }).trim().min(1, '请填写删除原因').max(500),
});

export const crfSdvBodySchema = z.object({
  crfDataRecordId: rowIdSchema,
  itemNames: z.array(z.string().max(100)).max(2000).optional(),
  verified: z.boolean(),
});
export type CrfSdvBody = z.infer<typeof crfSdvBodySchema>;

/** A yes/no of a body that may be JSON (a boolean) or form data (its text). */
const formFlagSchema = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/**
 * CRF-22/CRF-23: the save body, as JSON or as form-data text (ids and flags arrive as text there). `values` is the
 * JSON object here; the server also takes it as JSON text in form data, read under its body bounds.
 */
export const crfSaveBodySchema = z.object({
  subjectRecordId: rowIdTextSchema,
  crfId: rowIdTextSchema,
  crfDataRecordId: rowIdTextSchema.nullish(),
  /** The record's version as loaded; 0 for a new record. */
  version: z.coerce.number().int().min(0).max(MAX_ROW_ID).nullish(),
  values: z.record(z.string(), z.unknown()),
  submit: formFlagSchema.optional(),
  reason: z.string().max(500).nullish(),
  /** One per user action: a retried call answers the first result again. */
  requestId: z.string().max(64).nullish(),
  /** The follow-up visit form (随访) this save fills: the server ties the record to it in the same transaction. */
  followRecordCrfId: rowIdTextSchema.nullish(),
  /**
   * 缺失原因 (issue 37): the record's marks, item name → one of the study's codes, replacing the stored ones. Absent:
   * the record keeps its marks (writers that know nothing of marks leave them be). JSON text in form data.
   */
  missing: missingMarksSchema.optional(),
});
/** The save body as the browser sends it (JSON: numbers and booleans). */
export type CrfSaveBody = z.output<typeof crfSaveBodySchema>;

export const crfAuditQuerySchema = z.object({ crfDataRecordId: rowIdTextSchema, itemName: z.string().optional() });

/** What an audit CSV covers: the whole study, or what one audit view shows (a patient's, a record's, an item's). */
export const auditExportQuerySchema = z
  .object({
    /** Not needed when a patient or a record is named (their study is). */
    studyId: rowIdTextSchema.optional(),
    subjectRecordId: rowIdTextSchema.optional(),
    crfDataRecordId: rowIdTextSchema.optional(),
    itemName: z.string().max(100).optional(),
  })
  .refine((v) => v.studyId || v.subjectRecordId || v.crfDataRecordId, { message: '请指定项目' });
export type AuditExportScope = z.output<typeof auditExportQuerySchema>;

export const printTemplateQuerySchema = z.object({ crfId: rowIdTextSchema });
export const printWordQuerySchema = z.object({
  subjectRecordId: rowIdTextSchema,
  crfId: rowIdTextSchema,
  crfDataRecordId: rowIdTextSchema.optional(),
  format: z.enum(['docx', 'pdf']).default('docx'),
});

// ---- Responses ----

/** A CRF's definition as an answer carries it, checked only as an object (its content is crf-definition.schema.ts's). */
export const crfDefinitionValueSchema = z.custom<CrfDefinition>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
);
/** A record's values by item name. */
export const formValuesSchema = z.record(z.string(), z.unknown());

/** A node of the CRF menu (CRF-13): stages (type 0) hold forms (type 1). */
export const crfMenuNodeSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  type: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  crfId: z.number().optional(),
  /** 1 = a single form; anything else = repeatable, with a table of records (CRF-14). */
  repeat: z.number().optional(),
  state: z.number().optional(),
  count: z.number().optional(),
  get childrens(): z.ZodArray<typeof crfMenuNodeSchema> {
    return z.array(crfMenuNodeSchema);
  },
  /** The study buttons the caller holds (forms §6: button permissions come from the menu). */
  btns: z.array(z.strictObject({ code: z.string(), title: z.string() })),
});
export type CrfMenuNode = z.infer<typeof crfMenuNodeSchema>;

/**
 * The patient as the CRF page sees it (GET /api/business/ducking/patientInfo/{id}, and in the detail): the patient
 * answer, whose site and item data the page may go without; it reads the casebook's state as a plain code.
 */
export const crfPatientSchema = subjectSchema
  .partial({ deptId: true, deptName: true, itemDatas: true })
  .extend({ state: z.number() });
export type CrfPatient = z.infer<typeof crfPatientSchema>;

/** A verification mark: who verified an item (or the whole form) and when. */
export const sdvMarkSchema = z.strictObject({ by: z.number().optional(), byName: z.string(), at: z.string() });
export type SdvMark = z.infer<typeof sdvMarkSchema>;
export const sdvMarksSchema = z.record(z.string(), sdvMarkSchema);

export const crfDataRecordSchema = z.strictObject({
  id: z.number(),
  crfDataRecordId: z.number(),
  version: z.number(),
  crfVersion: z.number(),
  state: z.number(),
  values: formValuesSchema,
  sdv: sdvMarksSchema,
  /** 缺失原因: items marked with a missing-data code instead of a value (item → code); the server always sends it. */
  missing: missingMarksSchema.optional(),
  /** 参考范围 (issue 37): per item, the range its value was judged by at the last save (lab-ranges.ts UsedRange). */
  labRanges: z.record(z.string(), z.unknown()).optional(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type CrfDataRecord = z.infer<typeof crfDataRecordSchema>;

/** An open or replied query of the record, for the item markers. */
export const crfDoubtMarkSchema = z.strictObject({
  itemName: z.string(),
  groupName: z.string().nullable(),
  groupIndex: z.number().nullable(),
  doubtId: z.number(),
  optionType: z.number(),
  doubtType: z.number(),
});
export type CrfDoubtMark = z.infer<typeof crfDoubtMarkSchema>;

export const crfPermissionsSchema = z.strictObject({
  view: z.boolean().optional(),
  save: z.boolean(),
  submit: z.boolean(),
  sdv: z.boolean(),
  sign: z.boolean(),
  doubt: z.boolean(),
});
export type CrfPermissions = z.infer<typeof crfPermissionsSchema>;

export const signatureStateSchema = z.strictObject({ valid: z.boolean(), signedAt: z.string(), signer: z.string() });
export type SignatureState = z.infer<typeof signatureStateSchema>;

/** GET /api/v3/business/crf/{subjectRecordId} (CRF-17). */
export const crfRecordDetailSchema = z.strictObject({
  crf: z.strictObject({
    id: z.number(),
    title: z.string(),
    version: z.number(),
    option: crfOptionSchema,
    definition: crfDefinitionValueSchema,
  }),
  subject: crfPatientSchema,
  subjectRecord: z.strictObject({ id: z.number(), creater: z.string(), state: z.number() }),
  subjectState: z.strictObject({ crfId: z.number(), subjectRecordId: z.number(), state: z.number() }),
  crfDataRecord: crfDataRecordSchema.nullable(),
  /** Original names of the files the record's values refer to, by file key. */
  files: z.record(z.string(), z.string()).optional(),
  crfDataRecords: z.array(z.strictObject({ crfDataRecordId: z.number(), state: z.number() })),
  crfDoubts: z.array(crfDoubtMarkSchema),
  /** The defaults of a new record ("now" included), or null when a record is open. */
  initialValues: formValuesSchema.nullable(),
  /** Values of the patient's other forms that this form's form("标题", "item") calls read, by form title. */
  formValues: z.record(z.string(), formValuesSchema).optional(),
  repeat: z.number(),
  /** The study's IANA zone: the page's "today", "now" and shown times. */
  timeZone: z.string().optional(),
  /** The study's 脊柱诊断分级标准: the bands the form's manual spine measures are diagnosed by. */
  spineBandSet: z.enum(SPINE_BAND_SETS).optional(),
  permissions: crfPermissionsSchema,
  signature: signatureStateSchema.nullable(),
});
export type CrfRecordDetail = z.infer<typeof crfRecordDetailSchema>;

/** A per-item message of the engine as the server returns it. */
export const itemIssueSchema = z.strictObject({
  itemName: z.string(),
  groupName: z.string().nullable(),
  groupIndex: z.number().nullable(),
  message: z.string(),
});
export type ItemIssue = z.infer<typeof itemIssueSchema>;

export const crfSaveResultSchema = z.strictObject({
  crfDataRecordId: z.number(),
  version: z.number(),
  state: z.number(),
  errors: z.array(itemIssueSchema),
  warnings: z.array(itemIssueSchema),
  changedItems: z.array(z.string()).optional(),
  /** The answer of an earlier attempt with the same request id (nothing written this time). */
  repeated: z.boolean().optional(),
});
export type CrfSaveResult = z.infer<typeof crfSaveResultSchema>;

/** The data of 409 数据已被他人修改，请刷新后重试: what the record holds now. */
export const staleRecordSchema = z.strictObject({
  current: z.strictObject({
    crfDataRecordId: z.number(),
    version: z.number(),
    values: formValuesSchema,
    updatedBy: z.number().nullable(),
    updateTime: z.string(),
  }),
  changedItems: z.array(z.string()),
});
export type StaleRecord = z.infer<typeof staleRecordSchema>;

/** A record of a repeatable form, as its table lists it (CRF-24). */
export const crfDataRowSchema = z.strictObject({
  crfDataRecordId: z.number(),
  state: z.number(),
  version: z.number(),
  createTime: z.string(),
  updateTime: z.string(),
  creater: z.string(),
  summary: z.string(),
});
export type CrfDataRow = z.infer<typeof crfDataRowSchema>;

/**
 * One row of an item's or a form's history, in the server's words (core's describeAuditRow): the action's name,
 * the item's title in the row's CRF version, old and new values with labels, units and file names; the raw codes
 * beside them. The casebook trail's row, as far as the history drawer reads it.
 */
export const crfAuditRowSchema = auditEventSchema.pick({
  id: true,
  action: true,
  actionName: true,
  itemName: true,
  itemTitle: true,
  crfTitle: true,
  oldValue: true,
  newValue: true,
  oldText: true,
  newText: true,
  oldFiles: true,
  newFiles: true,
  reason: true,
  userName: true,
  createTime: true,
  crfVersion: true,
});
export type CrfAuditRow = z.infer<typeof crfAuditRowSchema>;

/** A stored file a value refers to, with the name it was uploaded with (opened through the download call). */
export const fileLinkSchema = crfAuditRowSchema.shape.oldFiles.element;
export type FileLink = z.infer<typeof fileLinkSchema>;

/** A casebook's electronic signature (SUBJ-23), valid until data under it changes. */
export const signatureSchema = z.strictObject({
  id: z.number(),
  signer: z.string(),
  meaning: z.string(),
  signedAt: z.string(),
  valid: z.boolean(),
  invalidatedAt: z.string().nullable(),
  invalidatedReason: z.string().nullable(),
});
export type Signature = z.infer<typeof signatureSchema>;

export const overviewFormSchema = z.strictObject({
  crfId: z.number(),
  title: z.string(),
  option: crfOptionSchema,
  definition: crfDefinitionValueSchema,
  records: z.array(z.strictObject({ crfDataRecordId: z.number(), values: formValuesSchema, state: z.number() })),
});
export type OverviewForm = z.infer<typeof overviewFormSchema>;

/** GET /api/v3/business/overview/{subjectRecordId} (PRINT-09). */
export const crfOverviewSchema = z.strictObject({
  subject: crfPatientSchema,
  menu: z.array(crfMenuNodeSchema),
  crfs: z.array(overviewFormSchema),
  /** Original names of the files the records refer to, by file key. */
  files: z.record(z.string(), z.string()).optional(),
  /** The casebook's signatures, valid and voided, newest first (as GET /api/business/subject/signatures). */
  signatures: z.array(signatureSchema).optional(),
  /** The study's zone (studies.timeZone): signature times read in it. */
  timeZone: z.string().optional(),
});
export type CrfOverview = z.infer<typeof crfOverviewSchema>;
