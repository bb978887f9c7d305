import { z } from 'zod';
import type { CrfDefinition } from './crf/crf-definition.schema.js';
import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields, studyIdQuerySchema } from './request-fields.js';

/**
 * The HTTP contract of a study's CRF library (CRF管理): listing, reading, uploading, exporting and deleting CRF
 * definitions. Uploads are multipart, so only their choices have a schema here.
 */

// ---- Requests ----

export const crfListQuerySchema = studyIdQuerySchema.extend({
  ...pagingQueryFields,
  title: z.string().trim().optional(),
});
export const crfVersionQuerySchema = z.object({ version: rowIdTextSchema.max(MAX_ROW_ID).optional() });
export const crfDeleteQuerySchema = studyIdQuerySchema.extend({ crfId: rowIdTextSchema });

export const crfExportFormatSchema = z.enum(['json', 'excel', 'odm', 'redcap']);
export type CrfExportFormat = z.infer<typeof crfExportFormatSchema>;
export const crfExportBodySchema = z.object({
  crfId: rowIdSchema,
  version: rowIdSchema.optional(),
  format: crfExportFormatSchema.default('json'),
});

/** For a title the study already has: its next version, or a new CRF beside it. */
export const crfExistingChoiceSchema = z.enum(['version', 'new']);
export type CrfExistingChoice = z.infer<typeof crfExistingChoiceSchema>;
/** An upload's `onExisting`: per title the study already has, what to do with it. */
export const crfExistingChoicesSchema = z.record(z.string().max(200), crfExistingChoiceSchema);

// ---- Responses ----

/** A row of the CRF page. */
export const crfRowSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  title: z.string(),
  version: z.number(),
  versionCount: z.number(),
  itemCount: z.number(),
  source: z.string(),
  hasData: z.boolean(),
  creater: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type CrfRow = z.infer<typeof crfRowSchema>;

/** A CRF of the study as the pickers list it (and as an upload reports what it stored). */
export const crfListItemSchema = z.strictObject({ id: z.number(), title: z.string(), version: z.number() });
export type CrfListItem = z.infer<typeof crfListItemSchema>;

export const crfVersionSchema = z.strictObject({
  version: z.number(),
  source: z.string(),
  /** The CRF's open draft (issue 36): not published, filled only by test patients. */
  draft: z.boolean(),
  creater: z.string().nullable(),
  createTime: z.string(),
});
export type CrfVersion = z.infer<typeof crfVersionSchema>;

/** One version of a CRF with its definition (checked by the definition's own linter, not here) and every version. */
export const crfDetailSchema = z.strictObject({
  id: z.number(),
  studyId: z.number(),
  title: z.string(),
  version: z.number(),
  definition: z.custom<CrfDefinition>((v) => typeof v === 'object' && v !== null && !Array.isArray(v)),
  versions: z.array(crfVersionSchema),
});
export type CrfDetail = z.infer<typeof crfDetailSchema>;

/** A linter finding as the upload answers it. */
export const crfIssueSchema = z.object({ path: z.string(), message: z.string() });
export type CrfIssue = z.infer<typeof crfIssueSchema>;

/** What an upload would do with one form (the server's plan, answered by a dry run or a 409). */
export const crfPlannedFormSchema = z.strictObject({
  /** The form's title in the file. */
  title: z.string(),
  /** create: a new CRF (titled `storedTitle`); version: the next version of CRF `crfId`. */
  action: z.enum(['create', 'version']),
  storedTitle: z.string(),
  crfId: z.number().optional(),
  /** The CRF's version after the upload (1 for a new CRF). */
  version: z.number(),
  /** A CRF with this title exists; `choice` says what the user chose, absent until they choose. */
  existing: z
    .strictObject({
      crfId: z.number(),
      currentVersion: z.number(),
      hasData: z.boolean(),
      choice: crfExistingChoiceSchema.optional(),
    })
    .optional(),
});
export type CrfPlannedForm = z.infer<typeof crfPlannedFormSchema>;

export const crfUploadResultSchema = z.strictObject({
  crfs: z.array(crfListItemSchema),
  warnings: z.array(crfIssueSchema),
  notes: z.array(z.string()),
  /** Present on a dry run. */
  plan: z.array(crfPlannedFormSchema).optional(),
});
export type CrfUploadResult = z.infer<typeof crfUploadResultSchema>;

/** One file of a batch upload: stored (`ok`, with what an upload answers) or refused (`errors`, maybe a plan). */
export const crfFileResultSchema = z.strictObject({
  fileName: z.string(),
  ok: z.boolean(),
  crfs: z.array(crfListItemSchema).optional(),
  errors: z.array(crfIssueSchema).optional(),
  warnings: z.array(crfIssueSchema).optional(),
  notes: z.array(z.string()).optional(),
  plan: z.array(crfPlannedFormSchema).optional(),
});
export type CrfFileResult = z.infer<typeof crfFileResultSchema>;
