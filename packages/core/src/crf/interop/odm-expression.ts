import {
  compileExpression,
  EXPRESSION_OPERATORS,
  tokenize as ourTokenize,
  ExpressionError,
  FUNCTIONS,
  parseExpression,
  printExpression,
  type BinaryOperator,
  type Expr,
} from '../expression/index.js';
import { translateRedcapLogic, type RedcapFieldKind } from './redcap.js';

/**
 * ODM FormalExpressions (in ConditionDef and MethodDef) to and from our expression language (§4).
 *
 * Contexts we read:
 * - `ecrf`: what exportOdm writes, our language with each item written as its ItemOID; our blank logic.
 * - `REDCap…`: REDCap logic (`[var] = '1'`), translated by translateRedcapLogic with REDCap's blank logic.
 * - anything else (`XPath`, OpenClinica and other plain-text styles): one grammar covering both —
 *   = != <> < <= > >= and XPath's eq ne lt le gt ge, and/or/not(), + - * / and XPath's div and mod,
 *   parentheses, numbers and strings, and item references as an ItemOID (`I_AGE`, `IT.AGE`), a dotted
 *   path ending in one (`SE_1.F_VS.IG_VS.I_AGE`), `$I_AGE`, an XPath ending in
 *   `ItemData[@ItemOID='I_AGE']/@Value`, or an ItemDef Name. As in XPath, where a missing ItemData is an
 *   empty node-set, a comparison that reads a blank item is false (not undecided): it is written with
 *   isblank() guards.
 */
export type FormalContext = 'ecrf' | 'redcap' | 'xpath';

/** The context our exports write; documented in docs/crf-format.md §9.4. */
export const ECRF_CONTEXT = 'ecrf';

export function contextOf(attribute: string | undefined): FormalContext {
  const value = (attribute ?? '').trim().toLowerCase();
  if (value === ECRF_CONTEXT) return 'ecrf';
  if (value.startsWith('redcap')) return 'redcap';
  return 'xpath';
}

/** How references in a FormalExpression find the imported items of the form. */
export interface ItemResolver {
  /** The item name a reference means in this form (ItemOID, dotted path, ItemDef Name), or undefined. */
  resolve(reference: string): string | undefined;
  /** Every ItemOID of the file, longest first, so that OIDs with dots or hyphens read as one token. */
  oids: readonly string[];
  /**
   * Whether an item of this form has the name, as REDCap's logic translation wants it: `number` for
   * numeric items and choices with numeric codes (REDCap orders a blank below every number), `text`
   * for the others, undefined when there is no such item.
   */
  kindOf(name: string): RedcapFieldKind | undefined;
}

export type LogicTranslation = { ok: true; expression: string } | { ok: false; reason: string };

class Untranslatable extends Error {}

type Token = (
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'ref'; value: string }
  | { type: 'name'; value: string }
  | { type: 'op'; value: string }
  | { type: 'end'; value: '' }
) & { at: number; end: number };

// Our operators, longest first; FormalExpressions' own words (eq, div, …) are read as names.
const OPERATORS = EXPRESSION_OPERATORS;
const NAME_PART = /[\p{L}\p{N}_]/u;

function tokenize(text: string, context: FormalContext, oids: readonly string[]): Token[] {
  const tokens: Token[] = [];
  const operandExpected = () => {
    const last = tokens[tokens.length - 1];
    return !last || (last.type === 'op' && last.value !== ')') || (last.type === 'name' && isKeyword(last.value));
  };
  const knownOid = (from: number) =>
    oids.find(
      (o) => text.startsWith(o, from) && !NAME_PART.test(text[from + o.length] ?? '') && text[from + o.length] !== '.',
    );
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const at = i;
    const rest = text.slice(i);
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      i += number[0].length;
      tokens.push({ type: 'number', value: Number(number[0]), at, end: i });
      continue;
    }
    if (ch === '"' || ch === "'") {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Untranslatable('字符串缺少结束引号');
        const c = text[i]!;
        if (context === 'ecrf' && c === '\\' && i + 1 < text.length) {
          const next = text[i + 1]!;
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
          continue;
        }
        if (c === ch) {
          // XPath writes a quote inside a string by doubling it.
          if (context !== 'ecrf' && text[i + 1] === ch) {
            value += ch;
            i += 2;
            continue;
          }
          break;
        }
        value += c;
        i += 1;
      }
      i += 1;
      tokens.push({ type: 'string', value, at, end: i });
      continue;
    }
    if (ch === '$') {
      const variable = knownOid(i + 1) ?? /^[\p{L}_][\p{L}\p{N}_.]*/u.exec(text.slice(i + 1))?.[0].replace(/\.+$/, '');
      if (!variable) throw new Untranslatable(`无法识别的变量：${rest.slice(0, 20)}`);
      i += 1 + variable.length;
      tokens.push({ type: 'ref', value: variable, at, end: i });
      continue;
    }
    // An XPath location path, absolute (/ODM/…/ItemData[@ItemOID='X']/@Value) or relative (ItemData[…]).
    if ((ch === '/' && operandExpected()) || /^[\p{L}_][\p{L}\p{N}_.-]*(\/[\p{L}_][\p{L}\p{N}_.-]*)*\[/u.test(rest)) {
      // Read it whole: predicates may hold spaces and quotes.
      let j = i;
      let depth = 0;
      let quote = '';
      while (j < text.length) {
        const c = text[j]!;
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '[') depth += 1;
        else if (c === ']') depth -= 1;
        else if (depth === 0 && /[\s)(,=!<>+*|]/.test(c)) break;
        j += 1;
      }
      const path = text.slice(i, j);
      const oid = [...path.matchAll(/@ItemOID\s*=\s*(['"])(.*?)\1/g)].pop()?.[2];
      if (!oid) throw new Untranslatable(`无法识别的 XPath 路径：${path}`);
      i = j;
      tokens.push({ type: 'ref', value: oid, at, end: i });
      continue;
    }
    if (/[\p{L}_]/u.test(ch)) {
      // A known ItemOID wins, so that I.AGE-1 is an OID and a subtraction, not a name with a hyphen.
      const oid = knownOid(i);
      if (oid) {
        i += oid.length;
        tokens.push({ type: 'ref', value: oid, at, end: i });
        continue;
      }
      // XPath function names may hold hyphens (string-length); other names are dotted paths.
      const fn = /^[\p{L}_][\p{L}\p{N}_]*(-[\p{L}][\p{L}\p{N}_]*)+(?=\s*\()/u.exec(rest);
      const name = fn?.[0] ?? /^[\p{L}_][\p{L}\p{N}_.]*/u.exec(rest)![0].replace(/\.+$/, '');
      i += name.length;
      tokens.push({ type: 'name', value: name, at, end: i });
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new Untranslatable(`无法识别的字符“${ch}”`);
    i += op.length;
    tokens.push({ type: 'op', value: op, at, end: i });
  }
  tokens.push({ type: 'end', value: '', at: text.length, end: text.length });
  return tokens;
}

const WORD_OPERATORS = new Set(['and', 'or', 'not', 'div', 'mod', 'eq', 'ne', 'lt', 'le', 'gt', 'ge']);
const isKeyword = (word: string) => WORD_OPERATORS.has(word.toLowerCase());
const COMPARISONS: Record<string, BinaryOperator> = {
  '==': '==',
  '=': '==',
  eq: '==',
  '!=': '!=',
  '<>': '!=',
  ne: '!=',
  '<': '<',
  lt: '<',
  '<=': '<=',
  le: '<=',
  '>': '>',
  gt: '>',
  '>=': '>=',
  ge: '>=',
};

/** Parses the ecrf/XPath/plain-text grammar into our syntax tree, references resolved to item names. */
function parse(text: string, items: ItemResolver): Expr {
  const tokens = tokenize(text, 'xpath', items.oids);
  let pos = 0;
  const missing = new Set<string>();
  const peek = () => tokens[pos]!;
  const next = () => tokens[pos++]!;
  const word = (t: Token, w: string) => t.type === 'name' && t.value.toLowerCase() === w;
  const op = (t: Token, o: string) => t.type === 'op' && t.value === o;
  const expect = (o: string) => {
    if (!op(peek(), o)) throw new Untranslatable(`第 ${peek().at + 1} 个字符处应为“${o}”`);
    next();
  };
  const reference = (value: string, at: number): Expr => {
    const name = items.resolve(value);
    if (name === undefined) missing.add(value);
    return { kind: 'identifier', name: name ?? value, start: at };
  };

  const or = (): Expr => {
    let left = and();
    while (word(peek(), 'or') || op(peek(), '||')) {
      const at = next().at;
      left = { kind: 'logical', op: 'or', left, right: and(), start: at };
    }
    return left;
  };
  const and = (): Expr => {
    let left = not();
    while (word(peek(), 'and') || op(peek(), '&&')) {
      const at = next().at;
      left = { kind: 'logical', op: 'and', left, right: not(), start: at };
    }
    return left;
  };
  const not = (): Expr => {
    const t = peek();
    // In XPath not(x) is a function, so not(a) = b compares its result; "not a" is the prefix operator.
    if ((word(t, 'not') && !op(tokens[pos + 1]!, '(')) || op(t, '!')) {
      next();
      return { kind: 'unary', op: 'not', operand: not(), start: t.at };
    }
    return comparison();
  };
  const comparison = (): Expr => {
    const left = additive();
    const t = peek();
    const key = t.type === 'op' ? t.value : t.type === 'name' ? t.value.toLowerCase() : '';
    const cmp =
      (t.type === 'op' || t.type === 'name') && Object.hasOwn(COMPARISONS, key) ? COMPARISONS[key] : undefined;
    if (!cmp) return left;
    next();
    const right = additive();
    return guard({ kind: 'binary', op: cmp, left, right, start: t.at });
  };
  const additive = (): Expr => {
    let left = multiplicative();
    while (op(peek(), '+') || op(peek(), '-')) {
      const t = next();
      left = { kind: 'binary', op: t.value as '+' | '-', left, right: multiplicative(), start: t.at };
    }
    return left;
  };
  const multiplicative = (): Expr => {
    let left = unary();
    for (;;) {
      const t = peek();
      const o = op(t, '*') ? '*' : op(t, '/') || word(t, 'div') ? '/' : op(t, '%') || word(t, 'mod') ? '%' : null;
      if (!o) return left;
      next();
      left = { kind: 'binary', op: o, left, right: unary(), start: t.at };
    }
  };
  const unary = (): Expr => {
    const t = peek();
    if (op(t, '-') || op(t, '+')) {
      next();
      return { kind: 'unary', op: t.value as '-' | '+', operand: unary(), start: t.at };
    }
    const base = primary();
    if (op(peek(), '^')) {
      const at = next().at;
      return { kind: 'binary', op: '^', left: base, right: unary(), start: at };
    }
    return base;
  };
  const primary = (): Expr => {
    const t = next();
    switch (t.type) {
      case 'number':
        return { kind: 'number', value: t.value, start: t.at };
      case 'string':
        return { kind: 'string', value: t.value, start: t.at };
      case 'ref':
        return reference(t.value, t.at);
      case 'name': {
        const lower = t.value.toLowerCase();
        if (op(peek(), '(')) {
          next();
          const args: Expr[] = [];
          if (!op(peek(), ')')) {
            args.push(or());
            while (op(peek(), ',')) {
              next();
              args.push(or());
            }
          }
          expect(')');
          return call(lower, args, t.at);
        }
        if (lower === 'true' || lower === 'false') return { kind: 'boolean', value: lower === 'true', start: t.at };
        if (lower === 'null') return { kind: 'null', start: t.at };
        if (isKeyword(lower)) throw new Untranslatable(`第 ${t.at + 1} 个字符处不应出现“${t.value}”`);
        return reference(t.value, t.at);
      }
      case 'op':
        if (t.value === '(') {
          const inner = or();
          expect(')');
          return inner;
        }
        throw new Untranslatable(`第 ${t.at + 1} 个字符处不应出现“${t.value}”`);
      case 'end':
        throw new Untranslatable('表达式不完整');
    }
  };

  /** XPath: any comparison reading a blank item is false; our engine would leave it undecided. */
  const guard = (comparisonNode: Expr): Expr => {
    const refs = new Map<string, Expr>();
    const collect = (e: Expr) => {
      if (e.kind === 'identifier') refs.set(e.name, e);
      else if (e.kind === 'unary') collect(e.operand);
      else if (e.kind === 'binary' || e.kind === 'logical') {
        collect(e.left);
        collect(e.right);
      } else if (e.kind === 'call') e.args.forEach(collect);
    };
    collect(comparisonNode);
    let out = comparisonNode;
    for (const ref of [...refs.values()].reverse()) {
      const filled: Expr = {
        kind: 'unary',
        op: 'not',
        operand: { kind: 'call', callee: 'isblank', args: [ref], start: ref.start },
        start: ref.start,
      };
      out = { kind: 'logical', op: 'and', left: filled, right: out, start: comparisonNode.start };
    }
    return out;
  };

  const result = or();
  if (peek().type !== 'end') throw new Untranslatable(`第 ${peek().at + 1} 个字符处多余的内容`);
  if (missing.size > 0) throw new Untranslatable(`引用的题目不在本表单中：${[...missing].join(', ')}`);
  return result;
}

/** XPath and common plain-text functions in our vocabulary; anything else is reported. */
function call(callee: string, args: Expr[], start: number): Expr {
  const fn = (name: string, ...a: Expr[]): Expr => ({ kind: 'call', callee: name, args: a, start });
  const zero: Expr = { kind: 'number', value: 0, start };
  switch (callee) {
    case 'not':
      if (args.length !== 1) break;
      return { kind: 'unary', op: 'not', operand: args[0]!, start };
    case 'true':
    case 'false':
      if (args.length !== 0) break;
      return { kind: 'boolean', value: callee === 'true', start };
    case 'string':
      if (args.length !== 1) break;
      return args[0]!;
    case 'string-length':
      return fn('len', ...args);
    case 'round':
      return args.length === 1 ? fn('round', args[0]!, zero) : fn('round', ...args);
    case 'floor':
    case 'ceiling': {
      if (args.length !== 1) break;
      const x = args[0]!;
      // Our rounddown is toward zero and roundup away from it; floor and ceiling depend on the sign.
      const [positive, negative] = callee === 'floor' ? ['rounddown', 'roundup'] : ['roundup', 'rounddown'];
      const isPositive: Expr = { kind: 'binary', op: '>=', left: x, right: zero, start };
      return fn('if', isPositive, fn(positive, x, zero), fn(negative, x, zero));
    }
    default: {
      const spec = FUNCTIONS.get(callee);
      if (!spec) throw new Untranslatable(`函数 ${callee}() 无法转换`);
      if (args.length < spec.min || args.length > spec.max) {
        throw new Untranslatable(`函数 ${callee}() 的参数个数不对`);
      }
      return fn(callee, ...args);
    }
  }
  throw new Untranslatable(`函数 ${callee}() 的参数个数不对`);
}

const isCall = (tokens: readonly { type: string; value: unknown }[], i: number) =>
  tokens[i + 1]?.type === 'op' && tokens[i + 1]?.value === '(';

/**
 * Our own context: the text is our language verbatim, so only the references are swapped back from
 * ItemOIDs to names and every other character is kept; the definition comes back exactly as written.
 */
function importEcrf(text: string, items: ItemResolver): string {
  const tokens = tokenize(text, 'ecrf', items.oids);
  const missing = new Set<string>();
  let out = '';
  let last = 0;
  tokens.forEach((t, i) => {
    if (t.type !== 'ref' && t.type !== 'name') return;
    if (t.type === 'name' && (KEYWORDS.has(t.value.toLowerCase()) || isCall(tokens, i))) return;
    const name = items.resolve(t.value);
    if (name === undefined) missing.add(t.value);
    out += text.slice(last, t.at) + (name ?? t.value);
    last = t.end;
  });
  if (missing.size > 0) throw new Untranslatable(`引用的题目不在本表单中：${[...missing].join(', ')}`);
  out += text.slice(last);
  compileExpression(out);
  return out;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);

function translate(text: string, context: FormalContext, items: ItemResolver): string {
  if (context === 'ecrf') return importEcrf(text, items);
  const source = text.replace(/\s+/g, ' ').trim();
  if (source === '') throw new Untranslatable('FormalExpression 为空');
  if (context === 'redcap') {
    // [ref] may be an ItemOID or an ItemDef Name; translateRedcapLogic wants our item names.
    const renamed = source.replace(/\[([^\]()]+)(\([^)]*\))?\]/g, (whole, ref: string, code: string | undefined) => {
      const name = items.resolve(ref.trim());
      return name === undefined ? whole : `[${name}${code ?? ''}]`;
    });
    const translated = translateRedcapLogic(renamed, (v) => items.kindOf(v));
    if (!translated.ok) throw new Untranslatable(translated.reason);
    return translated.expression;
  }
  const expression = printExpression(parse(source, items));
  compileExpression(expression);
  return expression;
}

const attempt = (run: () => string): LogicTranslation => {
  try {
    return { ok: true, expression: run() };
  } catch (error) {
    if (error instanceof Untranslatable || error instanceof ExpressionError) {
      return { ok: false, reason: error.message };
    }
    throw error;
  }
};

/** A MethodDef's FormalExpression as our calc. */
export function importMethod(text: string, context: FormalContext, items: ItemResolver): LogicTranslation {
  return attempt(() => translate(text, context, items));
}

/**
 * A ConditionDef's FormalExpression as our showIf. The condition is a collection exception (when it
 * holds, the item is not collected), so showIf is its negation; our own `not (…)` is unwrapped as written.
 */
export function importCondition(text: string, context: FormalContext, items: ItemResolver): LogicTranslation {
  return attempt(() => {
    const condition = translate(text, context, items);
    if (context === 'ecrf') {
      const wrapped = /^not \((.*)\)$/s.exec(condition);
      if (wrapped && balanced(wrapped[1]!)) return wrapped[1]!;
    }
    return printExpression(negate(parseExpression(condition)));
  });
}

/** Whether the parentheses of an expression pair up inside it (strings left aside). */
function balanced(source: string): boolean {
  let depth = 0;
  for (const t of ourTokenize(source)) {
    if (t.type !== 'operator') continue;
    if (t.value === '(') depth += 1;
    if (t.value === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** The logical negation, without stacking `not not`. */
function negate(node: Expr): Expr {
  return node.kind === 'unary' && node.op === 'not'
    ? node.operand
    : { kind: 'unary', op: 'not', operand: node, start: node.start };
}

/**
 * Our expression as an `ecrf` FormalExpression: the text as written, each item name replaced by its
 * ItemOID. Null when the expression does not parse or names something without an OID.
 */
export function exportMethod(expression: string, oidOf: (name: string) => string | undefined): string | null {
  let tokens: ReturnType<typeof ourTokenize>;
  try {
    parseExpression(expression);
    tokens = ourTokenize(expression);
  } catch {
    return null;
  }
  let out = '';
  let last = 0;
  for (const [i, t] of tokens.entries()) {
    if (t.type !== 'identifier' || KEYWORDS.has(t.value.toLowerCase())) continue;
    if (tokens[i + 1]?.type === 'operator' && tokens[i + 1]?.value === '(') continue;
    const oid = oidOf(t.value);
    if (oid === undefined) return null;
    out += expression.slice(last, t.start) + oid;
    last = t.start + t.text.length;
  }
  return out + expression.slice(last);
}

/** A showIf as the ConditionDef of a collection exception: `not (…)` around the ItemOID form. */
export function exportCondition(showIf: string, oidOf: (name: string) => string | undefined): string | null {
  const text = exportMethod(showIf, oidOf);
  return text === null ? null : `not (${text})`;
}
