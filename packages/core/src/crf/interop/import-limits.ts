import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { countValueItems } from '../../study.js';

/**
 * The largest CRF upload accepted. Real studies stay far below these (the largest public REDCap dictionary we
 * imported had 586 fields on 40 forms); they exist so that one file cannot hold an app server's memory or
 * CPU. Each cap has its own message: a user who meets one learns which and what to do.
 */
export const CRF_IMPORT_LIMITS = {
  /** Bytes of one uploaded file. */
  fileBytes: 20 * 1024 * 1024,
  /** Forms in one upload. */
  forms: 200,
  /** Worksheets in one workbook (the forms plus 表单列表, 说明 and 示例). */
  sheets: 210,
  /** Rows of one worksheet or of a CSV dictionary. */
  rows: 20_000,
  /** Value items of one form. */
  itemsPerForm: 3_000,
  /** Value items of one upload. */
  itemsPerUpload: 20_000,
  /** Characters of one text (a title, a label list, an expression). */
  textChars: 10_000,
  /** Seconds one file may take to read before it is given up. */
  parseSeconds: 60,
} as const;

export type CrfImportLimits = { readonly [K in keyof typeof CRF_IMPORT_LIMITS]: number };

export const importLimitMessages = {
  fileBytes: (limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `文件超过${Math.round(limits.fileBytes / 1024 / 1024)}MB，未导入，请拆分后上传`,
  forms: (count: number, limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `文件包含${count}个表单，超过上限${limits.forms}个，未导入，请拆分后上传`,
  sheets: (limits: CrfImportLimits = CRF_IMPORT_LIMITS) => `工作簿的工作表超过${limits.sheets}个，未导入，请拆分后上传`,
  rows: (where: string, limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `${where}超过${limits.rows}行，未导入，请拆分后上传`,
  itemsPerForm: (title: string, count: number, limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `表单“${title}”包含${count}个题目，超过上限${limits.itemsPerForm}个，未导入`,
  itemsPerUpload: (count: number, limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `文件共包含${count}个题目，超过上限${limits.itemsPerUpload}个，未导入，请拆分后上传`,
  textChars: (title: string, where: string, limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `表单“${title}”的${where}超过${limits.textChars}个字符，未导入`,
  parseSeconds: (limits: CrfImportLimits = CRF_IMPORT_LIMITS) =>
    `文件解析超过${limits.parseSeconds}秒，未导入，请拆分后上传`,
  memory: () => '文件解析所需内存超出上限，未导入，请拆分后上传',
  busy: () => '正在处理其他CRF文件，请稍后再试',
};

/** The first text longer than the cap, as a readable place (题目 bmi 的 option.calc). */
function longText(value: unknown, path: string, max: number, depth = 0): string | undefined {
  if (typeof value === 'string') return value.length > max ? path : undefined;
  if (value === null || typeof value !== 'object' || depth > 8) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'children') continue;
    const found = longText(child, path ? `${path}.${key}` : key, max, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function longTextInNodes(nodes: readonly CrfNode[], max: number): string | undefined {
  for (const node of nodes) {
    const own = longText(node, '', max);
    if (own) return `题目 ${node.name || node.title.slice(0, 20)} 的 ${own}`;
    const inner = longTextInNodes(node.children ?? [], max);
    if (inner) return inner;
  }
  return undefined;
}

/** The first cap an imported set of forms breaks, as its message; undefined when within every cap. */
export function importLimitBreach(
  definitions: readonly CrfDefinition[],
  limits: CrfImportLimits = CRF_IMPORT_LIMITS,
): string | undefined {
  if (definitions.length > limits.forms) return importLimitMessages.forms(definitions.length, limits);
  let total = 0;
  for (const definition of definitions) {
    const items = countValueItems(definition.children);
    if (items > limits.itemsPerForm) return importLimitMessages.itemsPerForm(definition.title, items, limits);
    total += items;
    const formText = longText({ ...definition, children: undefined }, '', limits.textChars);
    const text = formText ? `表单的 ${formText}` : longTextInNodes(definition.children, limits.textChars);
    if (text) return importLimitMessages.textChars(definition.title.slice(0, 40), text, limits);
  }
  if (total > limits.itemsPerUpload) return importLimitMessages.itemsPerUpload(total, limits);
  return undefined;
}

/**
 * Rows of a CSV text, counted without parsing it (a quoted line break does not end a row), stopping as soon as
 * the cap is passed: a 300,000-row file is refused after reading 20,001 rows, not after building them all.
 */
export function csvRowsExceed(text: string, max: number): boolean {
  let rows = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) quoted = !quoted;
    else if (c === 10 /* \n */ && !quoted && ++rows > max) return true;
  }
  return false;
}
