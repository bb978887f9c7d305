import { CRF_MSG } from '../crf-messages.js';
import Papa from 'papaparse';
import type { CrfDefinition, CrfNode, ItemOption } from '../crf-definition.schema.js';
import { ExpressionError, parseExpression, printExpression, type Expr } from '../expression/index.js';
import { finishImport, type ImportIssue, type ImportResult } from './import-result.js';

/**
 * REDCap data dictionary (the 18-column CSV) to CRF definitions, one per form. Every field type is
 * mapped; branching logic and calculations are rewritten into showIf and calc; whatever cannot be
 * carried over is reported per field as a warning, never dropped silently. The mapping table is in
 * docs/crf-format.md.
 */
/** REDCap's 18 data dictionary columns in its order: our field key and REDCap's header, spelled as REDCap does. */
const DICTIONARY_COLUMNS = [
  ['variable', 'Variable / Field Name'],
  ['form', 'Form Name'],
  ['section', 'Section Header'],
  ['type', 'Field Type'],
  ['label', 'Field Label'],
  ['choices', 'Choices, Calculations, OR Slider Labels'],
  ['note', 'Field Note'],
  ['validation', 'Text Validation Type OR Show Slider Number'],
  ['min', 'Text Validation Min'],
  ['max', 'Text Validation Max'],
  ['identifier', 'Identifier?'],
  ['branching', 'Branching Logic (Show field only if...)'],
  ['required', 'Required Field?'],
  ['alignment', 'Custom Alignment'],
  ['questionNumber', 'Question Number (surveys only)'],
  ['matrixGroup', 'Matrix Group Name'],
  ['matrixRanking', 'Matrix Ranking?'],
  ['annotation', 'Field Annotation'],
] as const satisfies ReadonlyArray<readonly [keyof Omit<RedcapField, 'row'>, string]>;

/** The header row of a REDCap data dictionary. */
export const REDCAP_COLUMNS = DICTIONARY_COLUMNS.map(([, header]) => header);
/** The field of each dictionary column, in column order. */
export const REDCAP_FIELD_KEYS = DICTIONARY_COLUMNS.map(([key]) => key);
const COLUMNS = Object.fromEntries(REDCAP_FIELD_KEYS.map((key, i) => [key, i])) as Record<
  (typeof REDCAP_FIELD_KEYS)[number],
  number
>;

export interface RedcapField {
  row: number;
  variable: string;
  form: string;
  section: string;
  type: string;
  label: string;
  choices: string;
  note: string;
  validation: string;
  min: string;
  max: string;
  identifier: string;
  branching: string;
  required: string;
  alignment: string;
  questionNumber: string;
  matrixGroup: string;
  matrixRanking: string;
  annotation: string;
}

export function parseRedcapCsv(text: string): { fields: RedcapField[]; issues: ImportIssue[] } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const issues: ImportIssue[] = parsed.errors.map((e) => ({
    severity: 'error',
    row: (e.row ?? 0) + 1,
    message: `CSV 格式错误：${e.message}`,
  }));
  const [header, ...rows] = parsed.data;
  if (!header || header.length < 12 || !/variable|field_name/i.test(header[0] ?? '')) {
    issues.push({
      severity: 'error',
      row: 1,
      message: '不是 REDCap 数据字典：第一行应为 Variable / Field Name, Form Name, … 等列名',
    });
    return { fields: [], issues };
  }
  if (rows.length === 0) {
    issues.push({
      severity: 'error',
      row: 2,
      message: '数据字典只有列名行，没有任何字段：请从第二行起每行填写一个字段',
    });
    return { fields: [], issues };
  }
  const fields = rows.map((cells, i) => {
    const cell = (key: keyof typeof COLUMNS) => (cells[COLUMNS[key]] ?? '').trim();
    return {
      row: i + 2,
      variable: cell('variable'),
      form: cell('form'),
      section: cell('section'),
      type: cell('type').toLowerCase(),
      label: cell('label'),
      choices: cell('choices'),
      note: cell('note'),
      validation: cell('validation').toLowerCase(),
      min: cell('min'),
      max: cell('max'),
      identifier: cell('identifier'),
      branching: cell('branching'),
      required: cell('required'),
      alignment: cell('alignment').toUpperCase(),
      questionNumber: cell('questionNumber'),
      matrixGroup: cell('matrixGroup'),
      matrixRanking: cell('matrixRanking'),
      annotation: cell('annotation'),
    };
  });
  return { fields, issues };
}

const stripHtml = (text: string) =>
  text
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();

/** "1, 男 | 2, 女" → parallel comma lists; commas inside labels become full-width (our lists split on ASCII commas). */
function parseChoices(
  text: string,
  warn: (message: string) => void,
): { optionsValue: string; optionsText: string } | null {
  if (text === '') return null;
  const values: string[] = [];
  const texts: string[] = [];
  let replaced = false;
  for (const part of text.split('|')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const comma = trimmed.indexOf(',');
    const code = (comma < 0 ? trimmed : trimmed.slice(0, comma)).trim();
    let label = stripHtml(comma < 0 ? trimmed : trimmed.slice(comma + 1).trim());
    if (label.includes(',')) {
      label = label.replace(/,/g, '，');
      replaced = true;
    }
    values.push(code);
    texts.push(label);
  }
  if (replaced) warn('选项文字中的英文逗号已改为中文逗号（选项列表以英文逗号分隔）');
  return { optionsValue: values.join(','), optionsText: texts.join(',') };
}

const TRANSLATABLE_FUNCTIONS = new Set([
  'if',
  'sum',
  'round',
  'roundup',
  'rounddown',
  'abs',
  'sqrt',
  'min',
  'max',
  'mean',
  'median',
  'isnumber',
  'contains',
  'datediff',
  'year',
  'month',
  'day',
  'concat',
]);
/** REDCap functions whose counterpart has another name here. */
const RENAMED_FUNCTIONS: Record<string, string> = { length: 'len' };
const DATE_FORMATS = new Set(['ymd', 'mdy', 'dmy']);

/**
 * How REDCap reads a field's blank in `<`, `<=`, `>`, `>=`: `number` fields (integer or number
 * validation, calc, slider, yes/no, true/false, file, choices whose codes are all numbers) turn a
 * blank into NaN, so every such comparison is false; any other field (`text`: free text, dates,
 * times, notes, choices with text codes) holds the empty text, which sorts before every other value.
 */
export type RedcapFieldKind = 'number' | 'text';

export type Translation = { ok: true; expression: string } | { ok: false; reason: string };

/**
 * Rewrites REDCap logic into our expression language: [var] → var, [var(code)] → checked(var, "code"),
 * datediff with its date-format and signed arguments, comparisons spelled out so that blanks give
 * REDCap's answer (see redcapComparison). Cross-event references, smart variables and functions we do
 * not have are refused with the reason. `known` says whether a field is on the form, and may say its
 * kind (a plain `true` is a text field).
 */
export function translateRedcapLogic(
  logic: string,
  known: (variable: string) => boolean | RedcapFieldKind | undefined,
): Translation {
  if (/\[[^\]]+\]\s*\[[^\]]+\]/.test(logic)) {
    return { ok: false, reason: '引用了其他事件的字段（[事件][字段]），无法转换' };
  }
  const smart = /\[([^\]]*[:-][^\]]*)\]/.exec(logic);
  if (smart && !/^\s*[A-Za-z0-9_]+\(\s*[^)]*\)\s*$/.test(smart[1]!)) {
    return { ok: false, reason: `REDCap 智能变量 [${smart[1]}] 无法转换` };
  }
  const missing = new Set<string>();
  const kinds = new Map<string, RedcapFieldKind>();
  const rewritten = logic
    .replace(/\[([A-Za-z0-9_]+)\(([^)]+)\)\]/g, (_m, variable: string, code: string) => {
      if (!known(variable)) missing.add(variable);
      return `checked(${variable}, "${code.trim().replace(/"/g, '')}")`;
    })
    .replace(/\[([A-Za-z0-9_]+)\]/g, (_m, variable: string) => {
      const kind = known(variable);
      if (!kind) missing.add(variable);
      kinds.set(variable, kind === 'number' ? 'number' : 'text');
      return variable;
    })
    .replace(/\r?\n/g, ' ');
  if (missing.size > 0) return { ok: false, reason: `引用的字段不在本表单中：${[...missing].join(', ')}` };
  let ast: Expr;
  try {
    ast = parseExpression(rewritten);
  } catch (error) {
    return { ok: false, reason: error instanceof ExpressionError ? error.message : String(error) };
  }
  const operand = (e: Expr): OperandKind => operandKind(e, (name) => kinds.get(name) ?? 'text');
  try {
    return { ok: true, expression: printExpression(rewrite(ast, operand)) };
  } catch (error) {
    if (error instanceof UntranslatableError) return { ok: false, reason: error.message };
    throw error;
  }
}

class UntranslatableError extends Error {}

/**
 * What one side of a REDCap comparison is, for its blank: a `blank` literal (`''`), another `literal`,
 * something `neverBlank` (a checkbox option, 0 or 1), a `number` or `text` field (RedcapFieldKind), or a
 * `computed` value (arithmetic, a function), which REDCap calculates as a number, NaN when an input is blank.
 */
export type OperandKind = 'blank' | 'literal' | 'neverBlank' | RedcapFieldKind | 'computed';

export function operandKind(e: Expr, fieldKind: (name: string) => RedcapFieldKind): OperandKind {
  switch (e.kind) {
    case 'null':
      return 'blank';
    case 'string':
      return e.value.trim() === '' ? 'blank' : 'literal';
    case 'number':
    case 'boolean':
      return 'literal';
    case 'unary':
      return e.op === '-' && e.operand.kind === 'number' ? 'literal' : 'computed';
    case 'identifier':
      return fieldKind(e.name);
    case 'call':
      return e.callee === 'checked' ? 'neverBlank' : 'computed';
    case 'binary':
    case 'logical':
      return 'computed';
  }
}

/** A REDCap comparison operator, as REDCap writes it. */
export type RedcapComparison = '=' | '<>' | '<' | '<=' | '>' | '>=';

const OUR_OPERATOR = { '=': '==', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

/**
 * One REDCap comparison in our language, spelled out so that it gives REDCap's answer when a side is
 * blank. Our engine leaves a comparison with a blank side undecided (null) until the data is there;
 * REDCap's logic is two-valued. The rule (REDCap 10 to 15, server and browser alike for the cases
 * below; the truth tables are in docs/crf-format.md §9.3):
 *
 * - `=` and `<>` compare a blank as the empty text: `[x] = ''` is "x is blank", `[x] = '1'` is false
 *   and `[x] <> '1'` true while x is blank, `[x] = [y]` holds when both are blank.
 * - `<`, `<=`, `>`, `>=` with a number field or a calculated side: REDCap reads the blank as NaN and
 *   every such comparison is false.
 * - `<`, `<=`, `>`, `>=` between text fields (dates, times, free text) and literals: the blank is the
 *   empty text, before every other value: `[d] < '2020-01-01'` holds while d is blank, `[d] > …` not.
 * - against the literal `''`: as text, whatever the field (`[x] >= ''` always holds, `[x] < ''` never).
 *
 * Numbers written as text compare as numbers (`'10' > '9'`) and ISO dates as dates, as the engine
 * already does once both sides are filled in.
 */
export function redcapComparison(
  op: RedcapComparison,
  left: Expr,
  right: Expr,
  leftKind: OperandKind,
  rightKind: OperandKind,
  start = 0,
): Expr {
  const isblank = (arg: Expr): Expr => ({ kind: 'call', callee: 'isblank', args: [arg], start });
  const raw = (o: RedcapComparison = op): Expr => ({ kind: 'binary', op: OUR_OPERATOR[o], left, right, start });
  const literal = (k: OperandKind) => k === 'literal' || k === 'blank';
  if (literal(leftKind) && literal(rightKind)) return raw();
  // A checkbox option answers 0 or 1, never blank: its comparison needs no spelling out.
  if (leftKind === 'neverBlank' || rightKind === 'neverBlank') return raw();
  if (op === '=' || op === '<>') {
    const [field, value] = literal(rightKind)
      ? [left, rightKind]
      : literal(leftKind)
        ? [right, leftKind]
        : [null, null];
    if (field && value === 'blank') return op === '=' ? isblank(field) : asExpr(not(isblank(field)), start);
    if (field) {
      return asExpr(op === '=' ? and(not(isblank(field)), raw(), start) : or(isblank(field), raw(), start), start);
    }
    const bothBlank = and(isblank(left), isblank(right), start);
    const equal = or(bothBlank, and(and(not(isblank(left)), not(isblank(right)), start), raw('='), start), start);
    return asExpr(op === '=' ? equal : not(equal), start);
  }
  // Blankness of each side: a constant for a literal, else a test.
  const blank = (e: Expr, k: OperandKind): Bool => (k === 'blank' ? true : k === 'literal' ? false : isblank(e));
  const [bl, br] = [blank(left, leftKind), blank(right, rightKind)];
  const numeric = (k: OperandKind) => k === 'number' || k === 'computed';
  if ((numeric(leftKind) || numeric(rightKind)) && leftKind !== 'blank' && rightKind !== 'blank') {
    // REDCap reads the blank as NaN: the comparison is false.
    if (leftKind === 'computed' || rightKind === 'computed') {
      // if() reads an undecided condition as false; the calculated side is written once.
      const yes: Expr = { kind: 'boolean', value: true, start };
      return { kind: 'call', callee: 'if', args: [raw(), yes, { ...yes, value: false }], start };
    }
    return asExpr(and(and(not(bl), not(br), start), raw(), start), start);
  }
  // The blank is the empty text: before every other value, equal to another blank.
  switch (op) {
    case '<':
      return asExpr(and(not(br), or(bl, raw(), start), start), start);
    case '<=':
      return asExpr(or(bl, and(not(br), raw(), start), start), start);
    case '>':
      return asExpr(and(not(bl), or(br, raw(), start), start), start);
    case '>=':
      return asExpr(or(br, and(not(bl), raw(), start), start), start);
  }
}

// Boolean building with constants folded, so literals leave no `not false` behind.
type Bool = Expr | boolean;
const not = (a: Bool): Bool =>
  typeof a === 'boolean'
    ? !a
    : a.kind === 'unary' && a.op === 'not'
      ? a.operand
      : { kind: 'unary', op: 'not', operand: a, start: a.start };
function and(a: Bool, b: Bool, start: number): Bool {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return { kind: 'logical', op: 'and', left: a, right: b, start };
}
function or(a: Bool, b: Bool, start: number): Bool {
  if (a === true || b === true) return true;
  if (a === false) return b;
  if (b === false) return a;
  return { kind: 'logical', op: 'or', left: a, right: b, start };
}
const asExpr = (a: Bool, start: number): Expr => (typeof a === 'boolean' ? { kind: 'boolean', value: a, start } : a);

const REDCAP_OPERATOR = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

function rewrite(node: Expr, kindOf: (e: Expr) => OperandKind): Expr {
  switch (node.kind) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
      return node;
    case 'identifier':
      // A bare word in REDCap logic that is no field is one of its keywords.
      return node;
    case 'unary':
      return { ...node, operand: rewrite(node.operand, kindOf) };
    case 'binary': {
      const left = rewrite(node.left, kindOf);
      const right = rewrite(node.right, kindOf);
      if (node.op in REDCAP_OPERATOR) {
        // Kinds are read from REDCap's own operands, before they were spelled out.
        const op = REDCAP_OPERATOR[node.op as keyof typeof REDCAP_OPERATOR];
        return redcapComparison(op, left, right, kindOf(node.left), kindOf(node.right), node.start);
      }
      return { ...node, left, right };
    }
    case 'logical':
      return { ...node, left: rewrite(node.left, kindOf), right: rewrite(node.right, kindOf) };
    case 'call': {
      if (node.callee === 'checked') return node;
      if (node.callee === 'mod' && node.args.length === 2) {
        const [a, b] = node.args.map((arg) => rewrite(arg, kindOf)) as [Expr, Expr];
        return { kind: 'binary', op: '%', left: a, right: b, start: node.start };
      }
      const callee = RENAMED_FUNCTIONS[node.callee] ?? node.callee;
      if (!TRANSLATABLE_FUNCTIONS.has(callee) && callee === node.callee) {
        throw new UntranslatableError(`REDCap 函数 ${node.callee}() 无法转换`);
      }
      const args = node.args.map((arg) => rewrite(arg, kindOf));
      if (callee !== 'datediff') return { ...node, callee, args };
      if (args.length < 3) throw new UntranslatableError('datediff 需要单位参数');
      const [a, b, unit, ...rest] = args as [Expr, Expr, Expr, ...Expr[]];
      let signed = false;
      for (const extra of rest) {
        if (extra.kind === 'string' && DATE_FORMATS.has(extra.value)) continue;
        if (extra.kind === 'boolean') signed = extra.value;
        else if (extra.kind === 'string' && (extra.value === 'true' || extra.value === 'false')) {
          signed = extra.value === 'true';
        } else throw new UntranslatableError('datediff 的参数无法转换');
      }
      const call: Expr = { kind: 'call', callee: 'datediff', args: [a, b, unit], start: node.start };
      // REDCap answers the absolute difference unless asked for the signed one; ours is signed.
      return signed ? call : { kind: 'call', callee: 'abs', args: [call], start: node.start };
    }
  }
}

const TEXT_VALIDATIONS: Record<string, (option: ItemOption) => CrfNode['type']> = {
  '': () => 'input',
  integer: () => 'int',
  number: () => 'real',
  number_1dp: (o) => ((o.validate = { ...o.validate, precision: 1 }), 'real'),
  number_2dp: (o) => ((o.validate = { ...o.validate, precision: 2 }), 'real'),
  number_3dp: (o) => ((o.validate = { ...o.validate, precision: 3 }), 'real'),
  number_4dp: (o) => ((o.validate = { ...o.validate, precision: 4 }), 'real'),
  date_ymd: () => 'date',
  date_mdy: () => 'date',
  date_dmy: () => 'date',
  datetime_ymd: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), 'datetime'),
  datetime_mdy: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), 'datetime'),
  datetime_dmy: (o) => ((o.format = 'yyyy-MM-dd HH:mm'), 'datetime'),
  datetime_seconds_ymd: () => 'datetime',
  datetime_seconds_mdy: () => 'datetime',
  datetime_seconds_dmy: () => 'datetime',
  time: (o) => ((o.format = 'Hour'), 'time'),
  time_hh_mm_ss: () => 'time',
  email: (o) => ((o.validate = { ...o.validate, type: 'email' }), 'input'),
  phone: (o) => ((o.validate = { ...o.validate, type: 'phone' }), 'input'),
  alpha_only: (o) => ((o.validationEx = '^[A-Za-z]+$'), 'input'),
  zipcode: (o) => ((o.validationEx = '^\\d{5}(-\\d{4})?$'), 'input'),
  // Comma-decimal numbers are numbers with the same precision; the value is stored with a point.
  number_comma_decimal: () => 'real',
  number_1dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 1 }), 'real'),
  number_2dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 2 }), 'real'),
  number_3dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 3 }), 'real'),
  number_4dp_comma_decimal: (o) => ((o.validate = { ...o.validate, precision: 4 }), 'real'),
  // Minutes and seconds (a duration such as a 6-minute walk), as text with its pattern.
  time_mm_ss: (o) => (
    (o.validationEx = '^[0-5]\\d:[0-5]\\d$'),
    (o.validationErrorMsg = '请按 分:秒 填写，如 05:30'),
    'input'
  ),
  mrn_10d: (o) => ((o.validationEx = '^\\d{10}$'), (o.validationErrorMsg = '请输入10位病历号'), 'input'),
  mrn_generic: () => 'input',
};

/**
 * A date bound of a dictionary as ISO text: `1/1/1900` is read day- or month-first as the field's
 * validation says (`date_dmy` → day first, otherwise month first, REDCap's US default), and
 * `2023-8-1 1:01` is zero-padded, so bounds compare as dates rather than as arbitrary text.
 */
export function normalizeDateBound(bound: string, validation: string): string {
  const text = bound.trim();
  const time = (rest: string | undefined) => {
    if (!rest) return '';
    const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(rest);
    return m ? ` ${m[1]!.padStart(2, '0')}:${m[2]}${m[3] ? `:${m[3]}` : ''}` : '';
  };
  const pad = (n: string) => n.padStart(2, '0');
  const iso = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(.*)$/.exec(text);
  if (iso) return `${iso[1]}-${pad(iso[2]!)}-${pad(iso[3]!)}${time(iso[4])}`;
  const local = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(.*)$/.exec(text);
  if (local) {
    const [first, second] = [local[1]!, local[2]!];
    const [day, month] = validation.endsWith('dmy') ? [first, second] : [second, first];
    return `${local[3]}-${pad(month)}-${pad(day)}${time(local[4])}`;
  }
  return text;
}

const NUMERIC_VALIDATIONS = /^(integer|int|float|number(_\d+dp)?(_comma_decimal)?)$/;

/** REDCap's reading of a field's blank in comparisons (RedcapFieldKind), from its type and validation. */
export function redcapFieldKind(field: Pick<RedcapField, 'type' | 'validation' | 'choices'>): RedcapFieldKind {
  switch (field.type) {
    case 'calc':
    case 'slider':
    case 'yesno':
    case 'truefalse':
    case 'file':
      return 'number';
    case 'text':
      return NUMERIC_VALIDATIONS.test(field.validation) ? 'number' : 'text';
    case 'radio':
    case 'dropdown': {
      const codes = field.choices
        .split('|')
        .map((part) => part.split(',')[0]!.trim())
        .filter((code) => code !== '');
      return codes.length > 0 && codes.every((code) => /^-?\d+(\.\d+)?$/.test(code)) ? 'number' : 'text';
    }
    default:
      return 'text';
  }
}

const SUPPORTED_TAGS =
  /@(HIDDEN|HIDDEN-FORM|READONLY|READONLY-FORM|TODAY|NOW|DEFAULT|CHARLIMIT|PLACEHOLDER|CALCTEXT)\b/;

function fieldToNode(
  field: RedcapField,
  known: (v: string) => RedcapFieldKind | undefined,
  warn: (message: string) => void,
): CrfNode {
  const option: ItemOption = {};
  let type: CrfNode['type'];
  const withChoices = () => {
    const choices = parseChoices(field.choices, warn);
    if (choices) Object.assign(option, choices);
    else warn('选择题没有选项');
  };
  switch (field.type) {
    case 'text': {
      const map = TEXT_VALIDATIONS[field.validation];
      if (map) type = map(option);
      else {
        type = 'input';
        warn(`文本校验类型 ${field.validation} 无法转换，已作为无校验文本导入`);
      }
      if (field.validation === 'phone') warn('REDCap 的 phone 校验按北美号码；已改为中国大陆手机号校验');
      break;
    }
    case 'notes':
      type = 'textarea';
      break;
    case 'dropdown':
      type = 'select';
      withChoices();
      break;
    case 'radio':
      type = 'radio';
      withChoices();
      break;
    case 'checkbox':
      type = 'checkbox';
      withChoices();
      break;
    case 'yesno':
      type = 'radio';
      Object.assign(option, { optionsValue: '1,0', optionsText: '是,否' });
      break;
    case 'truefalse':
      type = 'radio';
      Object.assign(option, { optionsValue: '1,0', optionsText: '正确,错误' });
      break;
    case 'calc': {
      type = 'real';
      option.readOnly = 1;
      const translated = translateRedcapLogic(field.choices, known);
      if (translated.ok) option.calc = translated.expression;
      else warn(`计算公式无法转换（${translated.reason}）：${field.choices}`);
      break;
    }
    case 'slider': {
      type = 'slider';
      const bound = (text: string, fallback: number) =>
        text === '' ? fallback : Number.isFinite(Number(text)) ? Number(text) : text;
      option.valueMin = bound(field.min, 0);
      option.valueMax = bound(field.max, 100);
      const labels = field.choices.split('|').map((s) => stripHtml(s.trim()));
      if (labels.some((l) => l !== '')) option.description = labels.filter((l) => l !== '').join(' … ');
      break;
    }
    case 'file':
      type = 'fileUpload';
      if (field.validation === 'signature') warn('签名字段已作为文件上传题导入');
      break;
    case 'descriptive':
      type = 'title';
      break;
    case 'sql':
      type = 'input';
      warn('SQL 字段的选项来自数据库查询，无法转换；已作为文本题导入');
      break;
    default:
      type = 'input';
      warn(`未知的字段类型 ${field.type}，已作为文本题导入`);
  }
  // REDCap's min and max are soft: out of range, the page warns and the user may keep the value.
  // They become warning checks (which the platform turns into system queries at submit), never errors.
  if ((field.min !== '' || field.max !== '') && field.type === 'text') {
    if (type === 'int' || type === 'real') {
      const number = (v: string) => Number(v.replace(',', '.'));
      const checks = [];
      if (field.min !== '' && Number.isFinite(number(field.min))) {
        checks.push({
          expression: `${field.variable} >= ${number(field.min)}`,
          message: CRF_MSG.belowMin(number(field.min)),
          severity: 'warning' as const,
        });
      }
      if (field.max !== '' && Number.isFinite(number(field.max))) {
        checks.push({
          expression: `${field.variable} <= ${number(field.max)}`,
          message: CRF_MSG.aboveMax(number(field.max)),
          severity: 'warning' as const,
        });
      }
      option.checks = checks;
    } else if (type === 'date' || type === 'datetime') {
      const checks = [];
      const bound = (v: string) =>
        v.toLowerCase() === 'today' || v.toLowerCase() === 'now'
          ? `${v.toLowerCase()}()`
          : JSON.stringify(normalizeDateBound(v, field.validation));
      if (field.min !== '') {
        checks.push({
          expression: `${field.variable} >= ${bound(field.min)}`,
          message: `不能早于 ${/^(today|now)$/i.test(field.min) ? field.min : normalizeDateBound(field.min, field.validation)}`,
          severity: 'warning' as const,
        });
      }
      if (field.max !== '') {
        checks.push({
          expression: `${field.variable} <= ${bound(field.max)}`,
          message: `不能晚于 ${/^(today|now)$/i.test(field.max) ? field.max : normalizeDateBound(field.max, field.validation)}`,
          severity: 'warning' as const,
        });
      }
      option.checks = checks;
    } else warn(`校验范围 ${field.min}–${field.max} 无法用于 ${field.validation || '文本'} 字段，未导入`);
  }
  if (field.note) {
    option.description = option.description ? `${option.description}；${stripHtml(field.note)}` : stripHtml(field.note);
  }
  if (field.required.toLowerCase() === 'y') option.required = 1;
  if (field.identifier.toLowerCase() === 'y') option.identifier = 1;
  if (field.alignment) option.itemLayout = field.alignment.endsWith('H') ? 'horizontal' : 'vertical';
  if (field.questionNumber) warn(`问卷题号 ${field.questionNumber} 未导入（仅用于 REDCap 问卷）`);
  if (field.matrixRanking.toLowerCase() === 'y') warn('矩阵排序（Matrix Ranking）无法转换');
  if (field.branching) {
    const translated = translateRedcapLogic(field.branching, known);
    if (translated.ok) option.showIf = translated.expression;
    else warn(`分支逻辑无法转换，该字段将始终显示（${translated.reason}）：${field.branching}`);
  }
  applyAnnotation(field, type, option, warn, known);
  const label = stripHtml(field.label);
  // Entities (&lt; for a literal <) are how REDCap writes text; only tags are formatting that is lost.
  if (/<[^>]*>/.test(field.label)) warn('标签中的 HTML 格式已去除');
  return { name: field.variable, title: label, type, option, children: [] };
}

/** The text between the parentheses of `@TAG(…)`, nested parentheses and quotes allowed; null when absent. */
function tagArgument(text: string, tag: string): { argument: string; end: number } | null {
  const start = text.indexOf(`${tag}(`);
  if (start < 0) return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = start + tag.length; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth += 1;
    else if (ch === ')') {
      depth -= 1;
      if (depth === 0) return { argument: text.slice(start + tag.length + 1, i), end: i + 1 };
    }
  }
  return null;
}

function applyAnnotation(
  field: RedcapField,
  type: CrfNode['type'],
  option: ItemOption,
  warn: (message: string) => void,
  known: (v: string) => RedcapFieldKind | undefined,
) {
  let text = field.annotation;
  if (!text) return;
  // @CALCTEXT(…): a calculated text on a text field, read-only like a calc field.
  const calcText = tagArgument(text, '@CALCTEXT');
  if (calcText) {
    text = `${text.slice(0, text.indexOf('@CALCTEXT('))}${text.slice(calcText.end)}`;
    const translated = translateRedcapLogic(calcText.argument, known);
    if (translated.ok && (type === 'input' || type === 'textarea')) {
      option.calc = translated.expression;
      option.readOnly = 1;
    } else {
      warn(`@CALCTEXT 无法转换（${translated.ok ? '只能用于文本字段' : translated.reason}）：${calcText.argument}`);
    }
  }
  // REDCap's @HIDDEN hides the field on the page only: its calculation runs and its value is saved.
  if (/@HIDDEN(-FORM)?\b(?!-)/.test(text)) option.notDisplayed = 1;
  if (/@READONLY(-FORM)?\b(?!-)/.test(text)) option.readOnly = 1;
  if (/@(TODAY|NOW)\b/.test(text)) {
    if (type === 'date' || type === 'datetime' || type === 'time') option.defaultValue = 'now';
    else warn('@TODAY/@NOW 只能用于日期或时间字段，未导入');
  }
  const dv = /@DEFAULT\s*=\s*(['"])(.*?)\1/.exec(text);
  if (dv) option.defaultValue = dv[2]!;
  const placeholder = /@PLACEHOLDER\s*=\s*(['"])(.*?)\1/.exec(text);
  if (placeholder) option.placeholder = placeholder[2]!;
  const limit = /@CHARLIMIT\s*=\s*(['"]?)(\d+)\1/.exec(text);
  if (limit) {
    if (type === 'input' || type === 'textarea') option.validate = { ...option.validate, max: Number(limit[2]) };
    else warn('@CHARLIMIT 只能用于文本字段，未导入');
  }
  const others = [...text.matchAll(/@[A-Z][A-Z0-9_-]*/g)]
    .map((m) => m[0])
    .filter((tag) => !SUPPORTED_TAGS.test(tag) || /-SURVEY/.test(tag));
  if (others.length > 0) warn(`动作标签 ${[...new Set(others)].join(' ')} 无法转换`);
  const plain = text.replace(/@[A-Z][A-Z0-9_-]*(\s*=\s*((['"]).*?\3|\d+))?/g, '').trim();
  if (plain) warn(`字段注释未导入：${plain}`);
}

/** REDCap form names are machine names; a readable title replaces the underscores. */
const formTitle = (form: string) => form.replace(/_/g, ' ').trim();

export function importRedcapDictionary(csv: string): ImportResult {
  const { fields, issues } = parseRedcapCsv(csv);
  if (issues.some((i) => i.severity === 'error')) return { ok: false, definitions: [], issues };
  const forms = new Map<string, RedcapField[]>();
  for (const field of fields) {
    if (!field.variable || !field.form) {
      issues.push({
        severity: 'error',
        row: field.row,
        field: field.variable || undefined,
        message: '缺少字段名或表单名',
      });
      continue;
    }
    if (!forms.has(field.form)) forms.set(field.form, []);
    forms.get(field.form)!.push(field);
  }
  const candidates = [...forms].map(([form, formFields]) => {
    const variables = new Set(formFields.map((f) => f.variable));
    const kinds = new Map(formFields.map((f) => [f.variable, redcapFieldKind(f)]));
    const rows = new Map(formFields.map((f) => [f.variable, f.row]));
    const children: CrfNode[] = [];
    let container = children;
    let sectionCount = 0;
    let matrix: { name: string; node: CrfNode } | null = null;
    for (const field of formFields) {
      const warn = (message: string) =>
        issues.push({ severity: 'warning', form, field: field.variable, row: field.row, message });
      if (field.section && !(matrix && field.matrixGroup === matrix.name)) {
        sectionCount += 1;
        const section: CrfNode = {
          name: `${form}_section_${sectionCount}`,
          title: stripHtml(field.section),
          type: 'section',
          option: {},
          children: [],
        };
        children.push(section);
        container = section.children;
      }
      const node = fieldToNode(field, (v) => kinds.get(v), warn);
      if (field.matrixGroup) {
        if (!matrix || matrix.name !== field.matrixGroup) {
          // Matrix group names live apart from variable names in REDCap; ours share one namespace.
          const name = variables.has(field.matrixGroup) ? `${field.matrixGroup}_matrix` : field.matrixGroup;
          // The matrix header is the section header of its first field, already shown by the section.
          const group: CrfNode = {
            name,
            title: field.section ? '' : field.matrixGroup,
            type: 'group',
            option: { showStyle: 'table' },
            children: [],
          };
          matrix = { name: field.matrixGroup, node: group };
          container.push(group);
        }
        matrix.node.children.push(node);
        continue;
      }
      matrix = null;
      container.push(node);
    }
    const definition: CrfDefinition = { id: form, title: formTitle(form), option: {}, children };
    return { form, definition, rowOf: (name: string) => rows.get(name) };
  });
  return finishImport(candidates, issues);
}
