/**
 * The plain-text FormalExpression grammar of other systems (XPath, OpenClinica and the like, described in
 * odm-expression.ts) read into our syntax tree, references resolved to item names.
 */
import { EXPRESSION_OPERATORS, FUNCTIONS, type BinaryOperator, type Expr } from '../expression/index.js';
import type { FormalContext, ItemResolver } from './odm-expression.js';

/** An expression that cannot be carried over; its message is the reason reported. */
export class Untranslatable extends Error {}

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

export function tokenize(text: string, context: FormalContext, oids: readonly string[]): Token[] {
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
export function parse(text: string, items: ItemResolver): Expr {
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
