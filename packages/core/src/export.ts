import { z } from 'zod';
import type { CrfDefinition, CrfNode } from './crf/crf-definition.schema.js';
import { additionKey, hasAddition } from './crf/evaluate-form.js';
import { isEmptyValue } from './crf/field-rules.js';
import { choicesOf, unitsOf, type Choice } from './crf/options.js';
import { additionTitle, formValueItems, valueText } from './crf/record-values.js';
import { readChoiceList } from './crf/value-shapes.js';
import { rowIdSchema, rowIdTextSchema } from './ids.js';
import { pagingQueryFields } from './request-fields.js';
import { FORM_STATE_FILTERS, searchConditionsSchema } from './search.js';
import { itemTypeOf } from './crf/item-types/registry.js';

/**
 * Data export (导出, platform §7 Search): the formats, the request both the 导出 dialog and the server read,
 * and the variables a form becomes in the tabular formats. One plan for Excel, CSV wide, SPSS and Stata/R, so
 * a variable has the same name and coding in every file of a study (save that Stata, which labels numbers
 * only, numbers a choice coded as text 1, 2, … with its labels).
 *
 * For the statistics packages the default is their own data file, which keeps types, labels and multi-line
 * text as they are: SPSS `.sav` and Stata `.dta` (R reads both with haven). The wide CSV zipped with SPSS
 * syntax, or with a Stata do-file and an R script, stays as an option for those who run syntax.
 */

export const EXPORT_FORMATS = [
  { code: 'excel', label: 'Excel（每个表单一个工作表）', ext: 'xlsx' },
  { code: 'csvWide', label: 'CSV 宽表（每位患者/阶段/重复记录一行）', ext: 'csv' },
  { code: 'csvLong', label: 'CSV 长表（每个变量值一行）', ext: 'csv' },
  { code: 'spss', label: 'SPSS 数据文件（.sav，含变量标签和值标签）', ext: 'sav' },
  { code: 'stata', label: 'Stata 数据文件（.dta，含标签，R 可用 haven 读取）', ext: 'dta' },
  { code: 'spssSyntax', label: 'SPSS 语法 + CSV（.sps + 数据，zip）', ext: 'zip' },
  { code: 'stataSyntax', label: 'Stata / R 脚本 + CSV（.do、.R + 数据，zip）', ext: 'zip' },
  { code: 'odm', label: 'CDISC ODM 1.3.2（含元数据）', ext: 'xml' },
  { code: 'redcap', label: 'REDCap 导入格式 CSV（数据 + 数据字典，zip）', ext: 'zip' },
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number]['code'];
const FORMAT_CODES = EXPORT_FORMATS.map((f) => f.code) as [ExportFormat, ...ExportFormat[]];

/**
 * Formats that always write choice codes, whatever `labels` asks, and why (the 导出 dialog shows it and offers no
 * labels; the server writes codes and says so in the file and the job's message): REDCap's import refuses a label.
 */
export const CODES_ONLY_FORMATS: Partial<Record<ExportFormat, string>> = {
  redcap: 'REDCap 导入只接受选项编码：此格式总是导出编码，标签在数据字典中',
};

/**
 * Which records go out, by the retrieval's form states: a record is exported when it is in any chosen state.
 * 未填 adds, in the per-form layouts (Excel sheets, wide rows), an empty row for a patient without a record.
 */
export const EXPORT_STATES = FORM_STATE_FILTERS;
export type ExportState = (typeof EXPORT_STATES)[number]['code'];
const STATE_CODES = EXPORT_STATES.map((s) => s.code) as [ExportState, ...ExportState[]];

/** Date shifting: a per-patient offset drawn from ±N days (never 0), N at most this. */
export const MAX_DATE_SHIFT_DAYS = 365;

export const exportOptionsSchema = z.object({
  format: z.enum(FORMAT_CODES),
  /** The forms to export; empty: every form the caller may view. */
  crfIds: z.array(rowIdSchema).max(1000).default([]),
  /** Only forms of these stages; empty: every stage. */
  stageIds: z.array(rowIdSchema).max(1000).default([]),
  states: z.array(z.enum(STATE_CODES)).min(1, '请至少选择一种表单状态').default(['saved', 'submitted']),
  /** Choice labels (true) or codes (false) in Excel and CSV files (REDCap's always codes: CODES_ONLY_FORMATS). */
  labels: z.boolean().default(false),
  /** Patient name, birth date, mobile and ID number: only with 查看患者身份信息, and only when asked. */
  identifiers: z.boolean().default(false),
  /** De-identified export: every date of a patient moved by one random offset within ±N days. */
  dateShiftDays: z.number().int().min(1).max(MAX_DATE_SHIFT_DAYS).nullable().default(null),
});
export type ExportOptions = z.infer<typeof exportOptionsSchema>;

/** POST /api/v3/business/search/export: the whole study (every live patient) with options. */
export const exportV3BodySchema = exportOptionsSchema.extend({ studyId: rowIdSchema });
/**
 * POST /api/v2/business/search/export: the patients of a search, by its conditions (the retrieval's model) or
 * by the list of patients (subject record ids) the search answered; one of the two.
 */
export const exportV2BodySchema = exportOptionsSchema.extend({
  studyId: rowIdSchema,
  conditions: searchConditionsSchema.optional(),
  subjectRecordIds: z.array(rowIdSchema).min(1).max(10_000).optional(),
});
export type ExportV2Body = z.infer<typeof exportV2BodySchema>;
export type ExportV3Body = z.infer<typeof exportV3BodySchema>;

/** `?wait=true`: a small export answers its file instead of its job (scripts, small studies). */
export const exportWaitQuerySchema = z.object({ wait: z.enum(['true', 'false']).optional() });

/** GET /api/business/search/export/log: the study's exports (a study manager's: everyone's), paged. */
export const exportLogQuerySchema = z.object({ studyId: rowIdTextSchema, ...pagingQueryFields });

/** An export as the log lists it: who asked for what (options and the patients' count, no values), and its file. */
export const exportLogRowSchema = z.strictObject({
  id: z.number(),
  jobId: z.string(),
  userId: z.number(),
  userName: z.string(),
  api: z.enum(['v2', 'v3']),
  format: z.string(),
  /** Made while the study was in 测试: a test export (测试数据_ file name, marked inside). */
  test: z.boolean(),
  options: z.looseObject({
    scope: z.looseObject({ kind: z.string(), patients: z.number().optional() }).optional(),
  }),
  state: z.string(),
  patientCount: z.number().nullable(),
  rowCount: z.number().nullable(),
  fileName: z.string().nullable(),
  fileSize: z.number().nullable(),
  sha256: z.string().nullable(),
  createTime: z.string(),
  finishTime: z.string().nullable(),
});
export type ExportLogRow = z.infer<typeof exportLogRowSchema>;

export const exportLogPageSchema = z.strictObject({
  total: z.number(),
  pageNum: z.number(),
  pageSize: z.number(),
  list: z.array(exportLogRowSchema),
});

/** What a form value becomes in a tabular export. */
export type ExportVariableKind = 'number' | 'date' | 'datetime' | 'partialDate' | 'text' | 'choice' | 'check';

export interface ExportVariable {
  /** A name SPSS, Stata and R accept: letters, digits, underscore, a letter first, at most 32 characters. */
  name: string;
  /** The CRF item it comes from. */
  item: string;
  title: string;
  kind: ExportVariableKind;
  /** The item's choices (choice), or the one choice a check variable stands for. */
  choices: Choice[];
  unit: string;
  node: CrfNode;
}

/** A variable name the statistics packages accept, from an item name (Chinese or odd characters replaced). */
export function statName(raw: string): string {
  let name = raw.replace(/[^A-Za-z0-9_]/g, '_').replace(/_+$/g, '');
  if (!/^[A-Za-z]/.test(name)) name = `v${name}`;
  return name.slice(0, 32);
}

/** Makes names unique (case-insensitively, as SPSS and Stata compare them) by numbering repeats. */
export function uniqueNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let n = 2; used.has(out.toLowerCase()); n += 1) {
      const suffix = `_${n}`;
      out = `${name.slice(0, 32 - suffix.length)}${suffix}`;
    }
    used.add(out.toLowerCase());
    return out;
  });
}

/**
 * A form's variables in form order: containers looked into; a multiple choice (checkbox, multi-select) is one
 * 0/1 variable per option, named `<item>___<code>` as REDCap and statisticians do; the text typed beside an
 * option (其他（请注明）) is a text variable of its own right after its item, named after the key it is stored
 * under (`<item>_addition`, as in the REDCap file); a list group or table is one text variable holding its rows
 * (their values one per row go to CSV long and ODM). Names are unique in the form; the caller makes them
 * unique across forms.
 */
export function exportVariables(definition: CrfDefinition): ExportVariable[] {
  const out: Omit<ExportVariable, 'name'>[] = [];
  const raw: string[] = [];
  for (const node of formValueItems(definition)) {
    const title = node.title || node.option.title || node.name;
    const unit = unitsOf(node.option)[0] ?? '';
    const kind = itemTypeOf(node.type).exportKind(node);
    if (kind === 'perChoice') {
      for (const choice of choicesOf(node.option)) {
        raw.push(`${statName(node.name)}___${choice.value.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`);
        out.push({
          item: node.name,
          title: `${title}：${choice.text}`,
          kind: 'check',
          choices: [choice],
          unit,
          node,
        });
      }
    } else {
      raw.push(statName(node.name));
      out.push({
        item: node.name,
        title,
        kind,
        choices: kind === 'choice' ? choicesOf(node.option) : [],
        unit,
        node,
      });
    }
    if (hasAddition(node)) {
      const key = additionKey(node.name);
      const specify: CrfNode = { name: key, title: additionTitle(node), type: 'input', option: {}, children: [] };
      raw.push(statName(key));
      out.push({ item: key, title: specify.title, kind: 'text', choices: [], unit: '', node: specify });
    }
  }
  const names = uniqueNames(raw.map((n) => n.slice(0, 32)));
  return out.map((v, i) => ({ ...v, name: names[i]! }));
}

/** Codes that are all whole numbers can be numeric variables with value labels in SPSS and Stata. */
export const numericCodes = (choices: readonly Choice[]) =>
  choices.length > 0 && choices.every((c) => /^-?\d{1,9}$/.test(c.value));

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})(.*)$/;

/**
 * A stored date or date-time moved by `days`: the date part shifts, the time of day stays. A date with an
 * unknown or missing part (2020-UK-UK, 2020-05) cannot be shifted without keeping its true year or month, so
 * it is withheld (null) in a shifted export.
 */
export function shiftDate(text: string, days: number): string | null {
  const m = FULL_DATE.exec(text.trim());
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(t)) return null;
  const d = new Date(t + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}${m[4]}`;
}

export interface CellOptions {
  labels: boolean;
  /** The patient's date offset in days, or null when dates are not shifted. */
  shiftDays: number | null;
  /** Uploaded files' names by key (valueText's): an upload is written as its files' names, never their keys. */
  fileNames?: ReadonlyMap<string, string>;
}

/**
 * One variable's cell from a record's values: codes or labels, a check variable 1/0 (已选/未选 with labels),
 * numbers as numbers, dates shifted when asked, the rest as the text the CRF page shows. Empty: null.
 */
export function exportCell(
  variable: ExportVariable,
  values: Readonly<Record<string, unknown>>,
  options: CellOptions,
): string | number | null {
  const value = values[variable.item];
  switch (variable.kind) {
    case 'check': {
      const chosen = readChoiceList(value).includes(variable.choices[0]!.value);
      return options.labels ? (chosen ? '已选' : '未选') : chosen ? 1 : 0;
    }
    case 'choice': {
      if (isEmptyValue(value)) return null;
      // The addition text is its own variable (exportVariables), never folded into the label.
      const code = String(value);
      return options.labels ? (variable.choices.find((c) => c.value === code)?.text ?? code) : code;
    }
    case 'number': {
      if (isEmptyValue(value)) return null;
      const n = typeof value === 'number' ? value : Number(String(value).trim());
      return Number.isFinite(n) && String(value).trim() !== '' ? n : String(value);
    }
    case 'date':
    case 'datetime':
    case 'partialDate':
      if (isEmptyValue(value)) return null;
      return options.shiftDays === null ? String(value) : shiftDate(String(value), options.shiftDays);
    case 'text': {
      if (isEmptyValue(value)) return null;
      const text = valueText(variable.node, value, values, { fileNames: options.fileNames });
      return text === '' ? null : text;
    }
  }
}

/** A random whole number of days in ±max, never 0 (a zero offset would leave that patient's dates true). */
export function randomShiftDays(max: number, random: () => number = Math.random): number {
  const magnitude = 1 + Math.floor(random() * max);
  return random() < 0.5 ? -magnitude : magnitude;
}

/** The file-name prefix of an export made while its study is in 测试 (test data). */
export const TEST_EXPORT_PREFIX = '测试数据_';
/**
 * The mark of an export made in 测试: the first row of a CSV and of each Excel sheet; where a first row would break
 * the format for its reader (SPSS, Stata, ODM, REDCap), the format's own label or a comment says it instead.
 */
export const TEST_EXPORT_NOTICE = '测试数据：本文件含测试数据，不得用于分析';
/** The label of a test export's data set (SPSS file label, Stata data label, ODM study description). */
export const testExportLabel = (studyName: string) => `测试数据：${studyName}`;

/**
 * The file name of an export: study, format and time, with what a file system cannot hold replaced; a test
 * export's name starts with 测试数据_.
 */
export function exportFileName(studyName: string, format: ExportFormat, stamp: string, test = false): string {
  const ext = EXPORT_FORMATS.find((f) => f.code === format)!.ext;
  const safe = studyName.replace(/[\\/:*?"<>|\s]+/g, '_').slice(0, 60) || 'study';
  return `${test ? TEST_EXPORT_PREFIX : ''}${safe}_数据导出_${stamp}.${ext}`;
}
