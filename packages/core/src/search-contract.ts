import { z } from 'zod';
import { rowIdSchema } from './ids.js';
import { pagingQueryFields } from './request-fields.js';
import {
  FORM_STATE_FILTERS,
  PATIENT_SEARCH_FIELDS,
  SEARCH_KINDS,
  SEARCH_OPERATORS,
  searchColumnsSchema,
  searchConditionsSchema,
  searchTemplateBodySchema,
  type FormStateFilter,
  type PatientSearchField,
  type SearchOperator,
} from './search.js';

/**
 * The HTTP contract of data retrieval (platform §7 Search): the builder's dictionary, the search, templates and the
 * exportable forms. The condition model itself (and the template's body) is in search.ts.
 */

// ---- Requests ----

/** POST /api/business/search/v2: conditions, the columns to show, and the page. */
export const searchBodySchema = z.object({
  studyId: rowIdSchema,
  conditions: searchConditionsSchema.default({ join: 'and', groups: [] }),
  columns: searchColumnsSchema,
  ...pagingQueryFields,
});
export type SearchBody = z.input<typeof searchBodySchema>;

export const searchTemplateSaveBodySchema = searchTemplateBodySchema.extend({ studyId: rowIdSchema });
export type SearchTemplateSaveBody = z.input<typeof searchTemplateSaveBodySchema>;

// ---- Responses ----

const searchKindSchema = z.enum(SEARCH_KINDS);
const searchOperatorSchema = z.enum(SEARCH_OPERATORS.map((o) => o.code) as [SearchOperator, ...SearchOperator[]]);

export const searchOptionSchema = z.strictObject({ value: z.string(), label: z.string() });
export type SearchOption = z.infer<typeof searchOptionSchema>;

export const searchPatientFieldSchema = z.strictObject({
  field: z.enum(PATIENT_SEARCH_FIELDS.map((f) => f.field) as [PatientSearchField, ...PatientSearchField[]]),
  title: z.string(),
  kind: searchKindSchema,
  operators: z.array(searchOperatorSchema),
  options: z.array(searchOptionSchema),
});
export type SearchPatientField = z.infer<typeof searchPatientFieldSchema>;

export const searchItemSchema = z.strictObject({
  name: z.string(),
  title: z.string(),
  /** The title after its list group's or table's title (`用药记录 › 药物名称`); the title for a form's own item. */
  path: z.string(),
  type: z.string(),
  kind: searchKindSchema,
  options: z.array(searchOptionSchema),
  /** The unit conditions are written in (the first); `units` all of a unit selector's, converted to the first. */
  unit: z.string(),
  units: z.array(z.string()),
  operators: z.array(searchOperatorSchema),
  /** The list group or table whose rows hold the item; null for a value of the form itself. */
  group: z.strictObject({ name: z.string(), title: z.string(), type: z.string() }).nullable(),
});
export type SearchItem = z.infer<typeof searchItemSchema>;

export const searchStageSchema = z.strictObject({ stageId: z.number(), name: z.string() });
export type SearchStage = z.infer<typeof searchStageSchema>;

export const searchCrfSchema = z.strictObject({
  crfId: z.number(),
  title: z.string(),
  repeatable: z.boolean(),
  stages: z.array(searchStageSchema),
  items: z.array(searchItemSchema),
});
export type SearchCrf = z.infer<typeof searchCrfSchema>;

/**
 * GET /api/business/search/dics: what the caller may search (forms they may view, identifiers only with
 * permission), as the builder reads it. The answer also repeats core's operator and join tables, which the
 * browser takes from core itself, so they are not part of what it reads here.
 */
export const searchDicsSchema = z.object({
  patientFields: z.array(searchPatientFieldSchema),
  crfs: z.array(searchCrfSchema),
  formStates: z.array(
    z.strictObject({
      code: z.enum(FORM_STATE_FILTERS.map((s) => s.code) as [FormStateFilter, ...FormStateFilter[]]),
      label: z.string(),
    }),
  ),
  /** The study's missing-data codes (缺失原因), the values of 缺失原因为; optional for fixtures predating them. */
  missingCodes: z.array(searchOptionSchema).optional(),
  recordSeparator: z.string(),
  /** Between the rows of a list group in one result cell. */
  rowSeparator: z.string(),
});
export type SearchDics = z.infer<typeof searchDicsSchema>;

export const searchRowSchema = z.strictObject({
  subjectRecordId: z.number(),
  subjectId: z.number(),
  identificationCode: z.string(),
  /** Column key (searchColumnKey) → the value as text; a repeatable form's records joined in record order. */
  cells: z.record(z.string(), z.string()),
});
export type SearchRow = z.infer<typeof searchRowSchema>;

/** A page of patients with the columns asked for (a form's column with its form, unit and repeatability). */
export const searchResultSchema = z.strictObject({
  total: z.number(),
  pageNum: z.number(),
  pageSize: z.number(),
  columns: z.array(
    z.strictObject({
      key: z.string(),
      title: z.string(),
      crfTitle: z.string().optional(),
      unit: z.string().optional(),
      repeatable: z.boolean().optional(),
    }),
  ),
  list: z.array(searchRowSchema),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchTemplateSchema = z.strictObject({
  id: z.number(),
  name: z.string(),
  shared: z.boolean(),
  conditions: searchConditionsSchema,
  columns: searchColumnsSchema,
  ownerId: z.number(),
  ownerName: z.string(),
  mine: z.boolean(),
  canDelete: z.boolean(),
  createTime: z.string(),
});
export type SearchTemplate = z.infer<typeof searchTemplateSchema>;

export const searchTemplateSavedSchema = z.strictObject({ id: z.number() });

export const exportableCrfSchema = z.strictObject({
  crfId: z.number(),
  title: z.string(),
  repeatable: z.boolean(),
  stages: z.array(searchStageSchema),
  itemCount: z.number(),
  /** Its items holding identifiers (their titles; a list group's column as 用药记录 › 药物名称): left out unless asked. */
  identifierItems: z.array(z.string()),
});
export type ExportableCrf = z.infer<typeof exportableCrfSchema>;
