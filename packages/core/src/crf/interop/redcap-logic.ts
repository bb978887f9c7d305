/** REDCap branching logic and calculations rewritten into our expression language, blanks answered as REDCap does. */
import { ExpressionError, parseExpression, printExpression, type Expr } from '../expression/index.js';
import type { RedcapField } from './redcap-dictionary.js';

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
