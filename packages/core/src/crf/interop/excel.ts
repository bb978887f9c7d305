import type ExcelJS from 'exceljs';

/** exceljs is large (≈ 13 MB and 0.6 s to load on the server): loaded on the first workbook, not at start. */
const excelJs = async () => (await import('exceljs')).default;
import {
  crossCheckSchema,
  ITEM_TYPES,
  KNOWN_OPTION_KEYS,
  type CrfDefinition,
  type CrfNode,
  type CrossCheck,
  type ItemOption,
  type ItemType,
} from '../crf-definition.schema.js';
import { excelSheetNames } from '../../excel-sheet-names.js';
import { exampleCrf } from '../example-crf.js';
import { ITEM_TYPE_LABELS } from '../item-type-labels.js';
import { finishImport, type ImportIssue, type ImportResult } from './import-result.js';

/**
 * The Excel workbook for authors who design CRFs in Excel: one sheet per form, one row per item in
 * document order, the nesting given by a depth column (1 = top level). A sheet 表单列表 holds each
 * form's id, title and form-level options; a sheet 说明 explains the columns. Export and import
 * round-trip: every option has a column, and anything else rides in the 其他选项 JSON column.
 */
const TYPE_ALIASES: Record<string, ItemType> = {
  复选框: 'checkbox',
  单选框: 'radio',
  下拉: 'select',
  章节: 'section',
  部分日期: 'partialDate',
  文本域: 'textarea',
  输入框: 'input',
  实数: 'real',
};

interface Column {
  key: string;
  label: string;
  help: string;
  width?: number;
}

/** Option paths in column order; validate.* are nested. */
export const EXCEL_COLUMNS: readonly Column[] = [
  { key: 'depth', label: '层级', help: '1 为顶层；子题目比父题目大 1，紧随父题目之后', width: 6 },
  { key: 'name', label: '名称', help: '题目名称：字母、数字、下划线，表单内唯一，表达式中用它引用', width: 16 },
  { key: 'title', label: '标题', help: '显示给填表人的文字', width: 24 },
  {
    key: 'type',
    label: '类型',
    help: `题目类型：${ITEM_TYPES.map((t) => ITEM_TYPE_LABELS[t]).join('、')}（也可写英文代码）`,
    width: 10,
  },
  { key: 'optionsValue', label: '选项值', help: '选项值，英文逗号分隔，如 1,2', width: 14 },
  { key: 'optionsText', label: '选项文字', help: '选项文字，英文逗号分隔，与选项值一一对应', width: 18 },
  { key: 'required', label: '必填', help: '1 为必填', width: 6 },
  { key: 'readOnly', label: '只读', help: '1 为只读', width: 6 },
  { key: 'hidden', label: '隐藏', help: '1 为隐藏', width: 6 },
  { key: 'defaultValue', label: '默认值', help: '默认值；日期可写 now 表示当天', width: 10 },
  {
    key: 'format',
    label: '格式',
    help: '日期格式 yyyy-MM-dd 等；时间 Hour；整数/小数的转换规则 decimal、interval、precision:2:R；文本的 前缀[###-####]',
    width: 14,
  },
  { key: 'units', label: '单位', help: '单位，多个用英文逗号分隔（出现单位选择）', width: 10 },
  { key: 'validate.min', label: '最小值', help: '数字题为数值下限，文本题为最少字数', width: 8 },
  { key: 'validate.max', label: '最大值', help: '数字题为数值上限，文本题为最多字数', width: 8 },
  { key: 'validate.type', label: '校验类型', help: 'int、float、email、phone、idcard', width: 10 },
  { key: 'validate.precision', label: '小数位数', help: '小数最多位数', width: 8 },
  { key: 'validationEx', label: '正则', help: '正则表达式', width: 14 },
  { key: 'validationErrorMsg', label: '错误提示', help: '替换本题所有校验提示的文字', width: 14 },
  { key: 'trig', label: '触发题目', help: '触发本题显示的题目名称', width: 10 },
  { key: 'tindex', label: '触发选项', help: '触发题目的选项序号（从 0 开始），多个用英文逗号分隔', width: 8 },
  { key: 'trigex', label: '组合触发', help: '题目:序号 对，英文逗号分隔，任一满足即显示，如 sex:1,preg:0', width: 14 },
  { key: 'showIf', label: '显示条件', help: '表达式，为真时显示，如 age >= 18 and sex == 2', width: 20 },
  { key: 'calc', label: '计算公式', help: '表达式，结果写入本题，如 round(bmi(weight, height), 1)', width: 20 },
  {
    key: 'checks',
    label: '核查',
    help: '每行一条：表达式 => 提示；以“警告:”开头为警告（不阻止提交），否则为错误',
    width: 24,
  },
  { key: 'valueMin', label: '滑块最小值', help: '滑块最小值（默认 0）', width: 8 },
  { key: 'valueMax', label: '滑块最大值', help: '滑块最大值（默认 10）', width: 8 },
  { key: 'valueStep', label: '滑块步长', help: '滑块步长（默认 1）', width: 8 },
  { key: 'addition', label: '附加项', help: '选中指定选项时出现的补充输入框的提示文字', width: 10 },
  { key: 'additionIndex', label: '附加项选项', help: '出现补充输入框的选项序号', width: 8 },
  { key: 'refValueMaleMin', label: '男性参考下限', help: '男性参考值下限', width: 8 },
  { key: 'refValueMaleMax', label: '男性参考上限', help: '男性参考值上限', width: 8 },
  { key: 'refValueFemaleMin', label: '女性参考下限', help: '女性参考值下限', width: 8 },
  { key: 'refValueFemaleMax', label: '女性参考上限', help: '女性参考值上限', width: 8 },
  { key: 'itemType', label: '日期类型', help: 'date 或 datetime', width: 8 },
  {
    key: 'showStyle',
    label: '显示样式',
    help: 'tag、pop、display、open、form、list、table、pastTime（不晚于今天）、futureTime（不早于今天），标题可写样式',
    width: 10,
  },
  { key: 'description', label: '说明', help: '题目说明', width: 16 },
  { key: 'titleEn', label: '英文标题', help: '英文标题（可留空），中英双语表单用', width: 20 },
  { key: 'placeholder', label: '占位提示', help: '输入框中的提示文字', width: 10 },
  { key: 'width', label: '宽度', help: '宽度', width: 6 },
  { key: 'cols', label: '列数', help: '占用列数', width: 6 },
  { key: 'crfCols', label: '分区列数', help: '分区每行的题目数', width: 6 },
  { key: 'itemLayout', label: '布局', help: '布局', width: 8 },
  { key: 'rightItemText', label: '右侧文字', help: '题目右侧的文字', width: 8 },
  { key: 'url', label: '链接地址', help: '链接题目的地址', width: 14 },
  { key: 'identifier', label: '标识字段', help: '1 为含个人身份信息的字段', width: 6 },
  { key: 'identifyId', label: '识别ID', help: '智能识别的模板 ID', width: 6 },
  { key: 'identifyType', label: '识别类型', help: '智能识别类型', width: 6 },
  { key: 'identifyIndex', label: '识别序号', help: '智能识别序号', width: 6 },
  { key: 'id', label: 'ID', help: '题目 ID（可留空）', width: 8 },
  { key: 'option', label: '其他选项', help: '其他选项字段的 JSON', width: 16 },
];

const NODE_KEYS = new Set(['depth', 'name', 'title', 'type', 'id', 'option']);
const FORMS_SHEET = '表单列表';
const HELP_SHEET = '说明';
const FORM_COLUMNS = [
  { key: 'sheet', label: '工作表' },
  { key: 'id', label: '表单ID' },
  { key: 'title', label: '表单标题' },
  { key: 'option', label: '表单选项' },
  { key: 'crfRules', label: '计算规则' },
] as const;

const header = (c: { key: string; label: string }) => `${c.label}（${c.key}）`;

type CellValue = string | number | boolean | undefined;

function cellValue(cell: ExcelJS.Cell): CellValue {
  const v = cell.value as unknown;
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    const o = v as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown };
    if (o.richText) return o.richText.map((r) => r.text).join('');
    if (o.result !== undefined) return o.result as CellValue;
    if (typeof o.text === 'string') return o.text;
  }
  return String(v);
}

function formatChecks(checks: readonly CrossCheck[]): string {
  return checks.map((c) => `${c.severity === 'warning' ? '警告: ' : ''}${c.expression} => ${c.message}`).join('\n');
}

function parseChecks(text: string): CrossCheck[] | string {
  const out: CrossCheck[] = [];
  for (const line of text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')) {
    const m = /^(?:(警告|错误|warning|error)\s*[:：]\s*)?(.+?)\s*=>\s*(.+)$/i.exec(line);
    if (!m) return `核查格式应为“表达式 => 提示”：${line}`;
    const severity = m[1] && /警告|warning/i.test(m[1]) ? 'warning' : 'error';
    out.push(crossCheckSchema.parse({ expression: m[2]!, message: m[3]!, severity }));
  }
  return out;
}

function addHelpSheet(workbook: ExcelJS.Workbook) {
  const sheet = workbook.addWorksheet(HELP_SHEET);
  sheet.columns = [
    { header: '列', key: 'column', width: 22 },
    { header: '说明', key: 'help', width: 90 },
  ];
  sheet.addRow({
    column: '使用方法',
    help: '每个表单一个工作表，每行一个题目，按显示顺序排列；“表单列表”给出每个工作表对应的表单 ID 和标题。',
  });
  for (const column of EXCEL_COLUMNS) sheet.addRow({ column: header(column), help: column.help });
  sheet.getRow(1).font = { bold: true };
}

function addFormSheet(workbook: ExcelJS.Workbook, name: string, definition: CrfDefinition | null) {
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = EXCEL_COLUMNS.map((c) => ({ header: header(c), key: c.key, width: c.width ?? 10 }));
  sheet.getRow(1).font = { bold: true };
  const typeList = `"${ITEM_TYPES.map((t) => ITEM_TYPE_LABELS[t]).join(',')}"`;
  const typeColumn = EXCEL_COLUMNS.findIndex((c) => c.key === 'type') + 1;
  const rows = definition ? flatten(definition.children, 1) : [];
  for (const { node, depth } of rows) sheet.addRow(nodeRow(node, depth));
  for (let r = 2; r <= Math.max(rows.length + 1, 200); r += 1) {
    sheet.getCell(r, typeColumn).dataValidation = { type: 'list', allowBlank: true, formulae: [typeList] };
  }
}

function flatten(nodes: readonly CrfNode[], depth: number): Array<{ node: CrfNode; depth: number }> {
  return nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children, depth + 1)]);
}

function nodeRow(node: CrfNode, depth: number): Record<string, CellValue> {
  const row: Record<string, CellValue> = {
    depth,
    name: node.name,
    title: node.title,
    type: ITEM_TYPE_LABELS[node.type],
    id: node.id,
  };
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node.option)) {
    if (value === undefined) continue;
    if (key === 'validate' && typeof value === 'object' && value !== null) {
      const validateRest: Record<string, unknown> = {};
      for (const [vk, vv] of Object.entries(value as Record<string, unknown>)) {
        if (['min', 'max', 'type', 'precision'].includes(vk)) row[`validate.${vk}`] = vv as CellValue;
        else validateRest[vk] = vv;
      }
      if (Object.keys(validateRest).length > 0) rest.validate = validateRest;
    } else if (key === 'checks') {
      row.checks = formatChecks(value as CrossCheck[]);
    } else if (
      EXCEL_COLUMNS.some((c) => c.key === key) &&
      !NODE_KEYS.has(key) &&
      (typeof value !== 'object' || value === null)
    ) {
      row[key] = value as CellValue;
    } else {
      rest[key] = value;
    }
  }
  if (Object.keys(rest).length > 0) row.option = JSON.stringify(rest);
  return row;
}

async function toBytes(workbook: ExcelJS.Workbook): Promise<Uint8Array> {
  const buffer = await workbook.xlsx.writeBuffer();
  return new Uint8Array(buffer as unknown as ArrayBuffer);
}

/** The workbook for the given forms: a 说明 sheet, the 表单列表 sheet and one sheet per form. */
export async function exportExcel(definitions: readonly CrfDefinition[]): Promise<Uint8Array> {
  const workbook = new (await excelJs()).Workbook();
  addHelpSheet(workbook);
  const forms = workbook.addWorksheet(FORMS_SHEET);
  forms.columns = FORM_COLUMNS.map((c) => ({ header: header(c), key: c.key, width: c.key === 'title' ? 24 : 16 }));
  forms.getRow(1).font = { bold: true };
  // The title itself is kept in 表单列表; the sheet's name is only what Excel accepts of it.
  const names = excelSheetNames(
    definitions.map((d) => d.title),
    { reserved: [FORMS_SHEET, HELP_SHEET] },
  );
  definitions.forEach((definition, i) => {
    forms.addRow({
      sheet: names[i],
      id: definition.id,
      title: definition.title,
      option: Object.keys(definition.option).length > 0 ? JSON.stringify(definition.option) : undefined,
      crfRules: definition.crfRules ? JSON.stringify(definition.crfRules) : undefined,
    });
    addFormSheet(workbook, names[i]!, definition);
  });
  return toBytes(workbook);
}

/** The downloadable blank template: the column guide, an empty form sheet and a worked example sheet. */
export async function createExcelTemplate(example: CrfDefinition = exampleCrf()): Promise<Uint8Array> {
  const workbook = new (await excelJs()).Workbook();
  addHelpSheet(workbook);
  const forms = workbook.addWorksheet(FORMS_SHEET);
  forms.columns = FORM_COLUMNS.map((c) => ({ header: header(c), key: c.key, width: c.key === 'title' ? 24 : 16 }));
  forms.getRow(1).font = { bold: true };
  forms.addRow({ sheet: '新表单', title: '新表单' });
  forms.addRow({
    sheet: '示例',
    id: example.id,
    title: example.title,
    option: JSON.stringify(example.option),
    crfRules: example.crfRules ? JSON.stringify(example.crfRules) : undefined,
  });
  addFormSheet(workbook, '新表单', null);
  addFormSheet(workbook, '示例', example);
  return toBytes(workbook);
}

function columnKey(text: string): string | null {
  const m = /[（(]([^）)]+)[）)]\s*$/.exec(text);
  const key = m ? m[1]!.trim() : text.trim();
  const byKey = EXCEL_COLUMNS.find((c) => c.key === key) ?? FORM_COLUMNS.find((c) => c.key === key);
  if (byKey) return byKey.key;
  const byLabel =
    EXCEL_COLUMNS.find((c) => c.label === text.trim()) ?? FORM_COLUMNS.find((c) => c.label === text.trim());
  return byLabel ? byLabel.key : null;
}

function typeOf(text: string): ItemType | null {
  const t = text.trim();
  if ((ITEM_TYPES as readonly string[]).includes(t)) return t as ItemType;
  const byLabel = ITEM_TYPES.find((type) => ITEM_TYPE_LABELS[type] === t);
  return byLabel ?? TYPE_ALIASES[t] ?? null;
}

function readSheetRows(
  sheet: ExcelJS.Worksheet,
  issues: ImportIssue[],
  form: string,
): Array<{ row: number; cells: Map<string, CellValue> }> {
  const keys = new Map<number, string>();
  sheet.getRow(1).eachCell((cell, col) => {
    const text = String(cellValue(cell) ?? '');
    const key = columnKey(text);
    if (key) keys.set(col, key);
    else if (text) issues.push({ severity: 'warning', form, row: 1, message: `未知的列“${text}”，已忽略` });
  });
  const rows: Array<{ row: number; cells: Map<string, CellValue> }> = [];
  sheet.eachRow((row, rowNumber) => {
    if (rowNumber === 1) return;
    const cells = new Map<string, CellValue>();
    row.eachCell((cell, col) => {
      const key = keys.get(col);
      const value = cellValue(cell);
      if (key && value !== undefined) cells.set(key, value);
    });
    if (cells.size > 0) rows.push({ row: rowNumber, cells });
  });
  return rows;
}

const parseJsonCell = (value: CellValue): unknown => {
  if (value === undefined) return undefined;
  return JSON.parse(String(value)) as unknown;
};

function rowToNode(
  cells: Map<string, CellValue>,
  warn: (message: string) => void,
  fail: (message: string) => void,
): CrfNode | null {
  const typeText = String(cells.get('type') ?? '');
  const type = typeOf(typeText);
  if (!type) {
    fail(typeText ? `未知的题目类型“${typeText}”` : '缺少题目类型');
    return null;
  }
  let option: ItemOption = {};
  try {
    const extra = parseJsonCell(cells.get('option'));
    if (extra !== undefined) {
      if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw new Error('应为对象');
      option = { ...(extra as ItemOption) };
    }
  } catch (error) {
    fail(`其他选项不是有效的 JSON 对象：${(error as Error).message}`);
  }
  for (const [key, value] of cells) {
    if (NODE_KEYS.has(key) || value === undefined) continue;
    if (key === 'checks') {
      const checks = parseChecks(String(value));
      if (typeof checks === 'string') fail(checks);
      else option.checks = checks;
    } else if (key.startsWith('validate.')) {
      option.validate = { ...option.validate, [key.slice('validate.'.length)]: value };
    } else if (KNOWN_OPTION_KEYS.has(key)) {
      (option as Record<string, unknown>)[key] = value;
    } else warn(`列 ${key} 未导入`);
  }
  const id = cells.get('id');
  const node: CrfNode = {
    name: String(cells.get('name') ?? ''),
    title: String(cells.get('title') ?? ''),
    type,
    option,
    children: [],
  };
  if (id !== undefined && typeof id !== 'boolean') node.id = id;
  return node;
}

/** Reads a workbook made from the template (or by exportExcel) into linted definitions. */
export async function importExcel(data: ArrayBuffer | Uint8Array): Promise<ImportResult> {
  const workbook = new (await excelJs()).Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch (error) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: `无法读取 Excel 文件：${(error as Error).message}` }],
    };
  }
  const issues: ImportIssue[] = [];
  const formInfo = new Map<
    string,
    { id?: string | number; title?: string; option?: unknown; crfRules?: unknown; row: number }
  >();
  const formsSheet = workbook.getWorksheet(FORMS_SHEET);
  if (formsSheet) {
    for (const { row, cells } of readSheetRows(formsSheet, issues, FORMS_SHEET)) {
      const sheet = cells.get('sheet');
      if (sheet === undefined) continue;
      try {
        formInfo.set(String(sheet), {
          id: cells.get('id') as string | number | undefined,
          title: cells.get('title') === undefined ? undefined : String(cells.get('title')),
          option: parseJsonCell(cells.get('option')),
          crfRules: parseJsonCell(cells.get('crfRules')),
          row,
        });
      } catch (error) {
        issues.push({
          severity: 'error',
          form: FORMS_SHEET,
          row,
          message: `表单选项或计算规则不是有效的 JSON：${(error as Error).message}`,
        });
      }
    }
  }
  const candidates: Parameters<typeof finishImport>[0] = [];
  workbook.eachSheet((sheet) => {
    if (sheet.name === FORMS_SHEET || sheet.name === HELP_SHEET) return;
    const form = sheet.name;
    const rows = readSheetRows(sheet, issues, form);
    if (rows.length === 0) {
      issues.push({ severity: 'warning', form, message: '工作表没有题目，已跳过' });
      return;
    }
    const rowOfName = new Map<string, number>();
    const roots: CrfNode[] = [];
    const stack: CrfNode[] = [];
    for (const { row, cells } of rows) {
      const warn = (message: string) =>
        issues.push({ severity: 'warning', form, row, field: cells.get('name') as string | undefined, message });
      const fail = (message: string) =>
        issues.push({ severity: 'error', form, row, field: cells.get('name') as string | undefined, message });
      const node = rowToNode(cells, warn, fail);
      if (!node) continue;
      const depthCell = cells.get('depth') ?? 1;
      const depth = Number(depthCell);
      if (!Number.isInteger(depth) || depth < 1 || depth > stack.length + 1) {
        fail(`层级 ${String(depthCell)} 无效：应为 1 到 ${stack.length + 1} 之间的整数`);
        continue;
      }
      stack.length = depth - 1;
      if (depth === 1) roots.push(node);
      else stack[depth - 2]!.children.push(node);
      stack.push(node);
      if (node.name && !rowOfName.has(node.name)) rowOfName.set(node.name, row);
    }
    const info = formInfo.get(form);
    const definition: CrfDefinition = {
      title: info?.title ?? form,
      option: (info?.option as CrfDefinition['option']) ?? {},
      children: roots,
    };
    if (info?.id !== undefined) definition.id = info.id;
    if (info?.crfRules !== undefined) definition.crfRules = info.crfRules as CrfDefinition['crfRules'];
    candidates.push({ form, definition, rowOf: (name) => rowOfName.get(name) });
  });
  if (candidates.length === 0 && !issues.some((i) => i.severity === 'error')) {
    issues.push({ severity: 'error', message: '工作簿中没有表单' });
  }
  const hadErrors = issues.some((i) => i.severity === 'error');
  const result = finishImport(candidates, issues);
  return hadErrors ? { ...result, ok: false } : result;
}
