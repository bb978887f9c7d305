import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { startedJobSchema } from './jobs-contract.js';
import { isChoiceType, type CrfDefinition, type CrfNode } from './crf/crf-definition.schema.js';
import { choicesOf, unitsOf, type Choice } from './crf/options.js';
import { formValueItems } from './crf/record-values.js';
import { itemTypeOf } from './crf/item-types/registry.js';

/**
 * Data import (导入, platform §7 Studies → Import): an Excel workbook, one sheet per CRF, brought into the
 * casebooks through the same save as the form page. What is pure lives here: the columns a form offers, how a
 * header names an item, how a cell becomes a stored value, and the shapes of the preview both server and page read.
 */

/** Every imported value's audit reason starts with this (the file's SHA-256 follows). */
export const DATA_IMPORT_REASON = '数据导入';

/** `submitType`: 0 saves (a submitted form stays submitted), 1 submits every form the file touches. */
export const IMPORT_SUBMIT_TYPES = [
  { code: 0, label: '保存' },
  { code: 1, label: '提交' },
] as const;

/** `mode`: `patient` imports every patient whose rows are all valid (按患者导入); `file` all or nothing (整体导入). */
export const IMPORT_MODES = [
  { code: 'patient', label: '按患者导入' },
  { code: 'file', label: '整体导入' },
] as const;
export type ImportMode = (typeof IMPORT_MODES)[number]['code'];

export const DATA_IMPORT_LIMITS = {
  /** Bytes of one workbook. */
  fileBytes: 20 * 1024 * 1024,
  /** Data rows of one workbook, all sheets together. */
  rows: 50_000,
  /** Columns of one sheet. */
  columns: 1_000,
  sheets: 210,
  /** Seconds the workbook may take to read before it is given up. */
  parseSeconds: 120,
  /** Above this many data rows the import (not the preview) runs as a background job. */
  jobRows: 500,
} as const;

/** The header of the patient code column: the template writes the first, a reader accepts any. */
export const CODE_COLUMNS = ['identificationCode', '编号', '患者编号', '研究编号'] as const;
/** The header of a repeatable form's record number (1 = its first record). */
export const INSTANCE_COLUMNS = ['instance', '序号', '记录序号'] as const;
export const DICTIONARY_SHEET = '数据字典';
export const README_SHEET = '说明';

/** Why an item has no column: shown in the dictionary and as the message of a column naming it. */
export type NotImportable = 'calc' | 'file' | 'rows';

export interface ImportColumn {
  name: string;
  title: string;
  node: CrfNode;
  choices: Choice[];
  unit: string;
  /** Set when the item cannot be imported from a sheet. */
  notImportable?: NotImportable;
}

/** A form's value items in form order (containers looked into; list-group columns stay inside their row item). */
export function importColumns(definition: CrfDefinition): ImportColumn[] {
  return formValueItems(definition).map((node) => {
    const notImportable: NotImportable | undefined =
      itemTypeOf(node.type).notImportable ?? (node.option.calc ? 'calc' : undefined);
    return {
      name: node.name,
      title: (node.title || node.option.title || node.name).trim(),
      node,
      choices: isChoiceType(node.type) ? choicesOf(node.option) : [],
      unit: unitsOf(node.option)[0] ?? '',
      ...(notImportable && { notImportable }),
    };
  });
}

export const NOT_IMPORTABLE_TEXT: Record<NotImportable, string> = {
  calc: '计算项由系统计算，不能导入',
  file: '文件和图片不能通过表格导入（图片请使用图片URL导入）',
  rows: '列表（多行）题目不能通过表格导入',
};

export type HeaderMeaning =
  { kind: 'code' } | { kind: 'instance' } | { kind: 'item'; column: ImportColumn } | { kind: 'error'; message: string };

/**
 * What a header names. A variable name wins over a title: a header that is one item's name and another's
 * title is the first item. A title shared by several items names none (the user is asked for the variable
 * name). Headers are compared trimmed; names case-sensitively, as the engine compares them.
 */
export function headerMeaning(columns: readonly ImportColumn[], header: string): HeaderMeaning {
  const text = header.trim();
  if ((CODE_COLUMNS as readonly string[]).includes(text)) return { kind: 'code' };
  if ((INSTANCE_COLUMNS as readonly string[]).includes(text)) return { kind: 'instance' };
  const byName = columns.find((c) => c.name === text);
  const column = byName ?? pickTitle(columns, text);
  if (typeof column === 'string') return { kind: 'error', message: column };
  if (!column) return { kind: 'error', message: '表单中没有此变量名或标题' };
  if (column.notImportable) return { kind: 'error', message: NOT_IMPORTABLE_TEXT[column.notImportable] };
  return { kind: 'item', column };
}

function pickTitle(columns: readonly ImportColumn[], title: string): ImportColumn | string | undefined {
  const matches = columns.filter((c) => c.title === title);
  if (matches.length > 1) return `标题对应多个题目（${matches.map((m) => m.name).join('、')}），请使用变量名`;
  return matches[0];
}

/** A cell as the workbook reader hands it over: dates already as text (YYYY-MM-DD or YYYY-MM-DD HH:mm:ss). */
export type ImportCell = string | number | boolean | null;

/**
 * The stored value of one cell, or undefined for a blank cell (a blank cell changes nothing). Choices accept
 * the option code or, failing that, its label; several choices are separated by , ; or |. Values are
 * converted, not judged: the engine judges them (option exists, number, range, date format) like on the page.
 */
export function cellValue(column: ImportColumn, cell: ImportCell): unknown {
  if (cell === null) return undefined;
  const text = (typeof cell === 'number' ? String(cell) : typeof cell === 'boolean' ? (cell ? '1' : '0') : cell).trim();
  if (text === '') return undefined;
  const { node } = column;
  const read = itemTypeOf(node.type).importCell;
  return read ? read(text, node) : text;
}

// ---------------------------------------------------------------------------------------------------------------
// What the server answers (preview and import) and the page shows.

export const importIssueSchema = z.strictObject({
  sheet: z.string(),
  /** The workbook's row number (1-based, as Excel shows it); null for a sheet-wide problem. */
  row: z.number().nullable(),
  /** The column's header as written in the sheet, or the item's title when its column is absent. */
  column: z.string().nullable(),
  message: z.string(),
});
export type ImportIssue = z.infer<typeof importIssueSchema>;

export const importItemChangeSchema = z.strictObject({
  item: z.string(),
  title: z.string(),
  column: z.string(),
  old: z.string(),
  new: z.string(),
});
export type ImportItemChange = z.infer<typeof importItemChangeSchema>;

export const importRowPlanSchema = z.strictObject({
  sheet: z.string(),
  row: z.number(),
  identificationCode: z.string(),
  crfTitle: z.string(),
  /** create: a new record; update: values change; unchanged: nothing to write. */
  action: z.enum(['create', 'update', 'unchanged']),
  /** The form is submitted (or will be): changes to it carry the reason 数据导入. */
  submitted: z.boolean(),
  changes: z.array(importItemChangeSchema),
  errors: z.array(importIssueSchema),
});
export type ImportRowPlan = z.infer<typeof importRowPlanSchema>;

export const importSummarySchema = z.strictObject({
  rows: z.number(),
  patients: z.number(),
  creates: z.number(),
  updates: z.number(),
  unchanged: z.number(),
  errors: z.number(),
  /** Patients whose rows are all valid: what 按患者导入 would write. */
  validPatients: z.number(),
});
export type ImportSummary = z.infer<typeof importSummarySchema>;

export const importPreviewSchema = z.strictObject({
  fileName: z.string(),
  sha256: z.string(),
  summary: importSummarySchema,
  /** Errors not tied to one row (unknown sheets and columns, forms the user may not edit). */
  sheetErrors: z.array(importIssueSchema),
  /** Per row, at most PREVIEW_ROW_LIMIT rows (rows with errors first); `truncated` says more exist. */
  rows: z.array(importRowPlanSchema),
  truncated: z.boolean(),
});
export type ImportPreview = z.infer<typeof importPreviewSchema>;

export const importResultSchema = z.strictObject({
  sha256: z.string(),
  mode: z.enum(IMPORT_MODES.map((m) => m.code) as [ImportMode, ...ImportMode[]]),
  submitType: z.number(),
  /** Patients whose forms were written. */
  importedPatients: z.number(),
  skippedPatients: z.number(),
  createdRecords: z.number(),
  updatedRecords: z.number(),
  values: z.number(),
  errors: z.array(importIssueSchema),
});
export type ImportResult = z.infer<typeof importResultSchema>;

/** An import's answer: its result, or the job it runs as when the file is large (see the 任务 drawer). */
export const importAnswerSchema = z.strictObject({
  job: startedJobSchema.nullable(),
  result: importResultSchema.nullable(),
});
export type ImportAnswer = z.infer<typeof importAnswerSchema>;

// ---------------------------------------------------------------------------------------------------------------
// What the server reads.

const importFlagSchema = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/** The import's query: the study, save or submit, a preview (dryRun) or the import, and how errors are taken. */
export const importQuerySchema = z.object({
  studyId: rowIdTextSchema,
  /** 0 保存, 1 提交. */
  submitType: z.coerce
    .number()
    .int()
    .min(0)
    .max(1)
    .pipe(z.union([z.literal(0), z.literal(1)])),
  dryRun: importFlagSchema,
  mode: z.enum(['patient', 'file']).default('patient'),
});

export const PREVIEW_ROW_LIMIT = 2_000;

/** The image items attach call (SRCH-07). */
export const imageUrlEntrySchema = z
  .object({
    identificationCode: z.string().trim().min(1).max(50).optional(),
    subjectRecordId: rowIdSchema.optional(),
    /** The CRF's id or title. */
    crf: z.union([rowIdSchema, z.string().trim().min(1).max(200)]),
    /** A repeatable form's record number (1 = its first); single forms leave it out. */
    instance: z.number().int().positive().max(10_000).optional(),
    item: z.string().trim().min(1).max(200),
    url: z.string().trim().min(1).max(2_000),
    remarks: z.string().max(180).optional(),
  })
  .refine((e) => e.identificationCode !== undefined || e.subjectRecordId !== undefined, {
    message: '请填写患者编号或 subjectRecordId',
  });
export const imageUrlsBodySchema = z.object({
  studyId: rowIdSchema,
  items: z.array(imageUrlEntrySchema).min(1).max(200),
});
export type ImageUrlsBody = z.infer<typeof imageUrlsBodySchema>;

/** What the image URL import stored: per entry (by its index) the file's key and hash. */
export const imageUrlResultSchema = z.strictObject({ index: z.number(), fileKey: z.string(), sha256: z.string() });
export type ImageUrlResult = z.infer<typeof imageUrlResultSchema>;
