import type { BinaryOperator, Expr } from './ast.js';
import { ExpressionError } from './errors.js';

/** Longer sources and deeper nesting are refused so that no input can exhaust the stack. */
export const MAX_EXPRESSION_LENGTH = 4000;
export const MAX_EXPRESSION_DEPTH = 64;

type Token =
  | { type: 'number'; value: number; start: number; text: string }
  | { type: 'string'; value: string; start: number; text: string }
  | { type: 'identifier'; value: string; start: number; text: string }
  | { type: 'operator'; value: string; start: number; text: string }
  | { type: 'end'; value: ''; start: number; text: '' };

const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);
// Longest first, so that "<=" is never read as "<" then "=".
export const EXPRESSION_OPERATORS: readonly string[] = [
  '==',
  '!=',
  '<>',
  '<=',
  '>=',
  '&&',
  '||',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '!',
  '(',
  ')',
  ',',
];
const IDENTIFIER_START = /[\p{L}_]/u;
const IDENTIFIER_PART = /[\p{L}\p{N}_]/u;

const syntaxError = (message: string, position: number) =>
  new ExpressionError('syntax', `表达式语法错误（第 ${position + 1} 个字符）：${message}`, position);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(source.slice(i))!;
      i += match[0].length;
      if (IDENTIFIER_START.test(source[i] ?? '')) throw syntaxError(`数字后面不能紧跟 "${source[i]}"`, i);
      tokens.push({ type: 'number', value: Number(match[0]), start, text: match[0] });
      continue;
    }
    if (ch === '"' || ch === "'") {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= source.length) throw syntaxError('字符串缺少结束引号', start);
        const c = source[i]!;
        if (c === ch) break;
        if (c === '\\') {
          const next = source[i + 1];
          if (next === undefined) throw syntaxError('字符串缺少结束引号', start);
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
          continue;
        }
        value += c;
        i += 1;
      }
      i += 1;
      tokens.push({ type: 'string', value, start, text: source.slice(start, i) });
      continue;
    }
    if (IDENTIFIER_START.test(ch)) {
      while (i < source.length && IDENTIFIER_PART.test(source[i]!)) i += 1;
      const text = source.slice(start, i);
      tokens.push({ type: 'identifier', value: text, start, text });
      continue;
    }
    const op = EXPRESSION_OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (op === undefined) throw syntaxError(`无法识别的字符 "${ch}"`, i);
    i += op.length;
    tokens.push({ type: 'operator', value: op, start, text: op });
  }
  tokens.push({ type: 'end', value: '', start: source.length, text: '' });
  return tokens;
}

const COMPARISON: Record<string, BinaryOperator> = {
  '==': '==',
  '=': '==',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/**
 * Recursive descent, lowest precedence first:
 *   or < and < not < comparison (one, not chained) < + - < * / % < unary - + < ^ (right) < primary.
 * Keywords are case-insensitive so REDCap's "AND"/"OR" read as ours.
 */
export function parseExpression(source: string): Expr {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError('too_long', `表达式过长（最多 ${MAX_EXPRESSION_LENGTH} 个字符）`, null);
  }
  const tokens = tokenize(source);
  let pos = 0;
  let depth = 0;

  const peek = () => tokens[pos]!;
  const isKeyword = (token: Token, word: string) => token.type === 'identifier' && token.value.toLowerCase() === word;
  const isOp = (token: Token, ...ops: string[]) => token.type === 'operator' && ops.includes(token.value);
  const describe = (token: Token) => (token.type === 'end' ? '表达式结尾' : `"${token.text}"`);
  const expectOp = (op: string) => {
    const token = peek();
    if (!isOp(token, op)) throw syntaxError(`此处应为 "${op}"，实际为 ${describe(token)}`, token.start);
    pos += 1;
  };
  const enter = (at: number) => {
    depth += 1;
    if (depth > MAX_EXPRESSION_DEPTH) throw new ExpressionError('too_deep', '表达式嵌套过深', at);
  };

  function parseOr(): Expr {
    let left = parseAnd();
    while (isKeyword(peek(), 'or') || isOp(peek(), '||')) {
      const start = peek().start;
      pos += 1;
      left = { kind: 'logical', op: 'or', left, right: parseAnd(), start };
    }
    return left;
  }

  function parseAnd(): Expr {
    let left = parseNot();
    while (isKeyword(peek(), 'and') || isOp(peek(), '&&')) {
      const start = peek().start;
      pos += 1;
      left = { kind: 'logical', op: 'and', left, right: parseNot(), start };
    }
    return left;
  }

  function parseNot(): Expr {
    const token = peek();
    if (isKeyword(token, 'not') || isOp(token, '!')) {
      pos += 1;
      enter(token.start);
      const operand = parseNot();
      depth -= 1;
      return { kind: 'unary', op: 'not', operand, start: token.start };
    }
    return parseComparison();
  }

  function parseComparison(): Expr {
    const left = parseAdditive();
    const token = peek();
    if (token.type === 'operator' && token.value in COMPARISON) {
      pos += 1;
      const right = parseAdditive();
      const next = peek();
      if (next.type === 'operator' && next.value in COMPARISON) {
        throw syntaxError('比较运算不能连写，请用 and 连接', next.start);
      }
      return { kind: 'binary', op: COMPARISON[token.value]!, left, right, start: token.start };
    }
    return left;
  }

  function parseAdditive(): Expr {
    let left = parseMultiplicative();
    while (isOp(peek(), '+', '-')) {
      const token = peek();
      pos += 1;
      left = { kind: 'binary', op: token.value as '+' | '-', left, right: parseMultiplicative(), start: token.start };
    }
    return left;
  }

  function parseMultiplicative(): Expr {
    let left = parseUnary();
    while (isOp(peek(), '*', '/', '%')) {
      const token = peek();
      pos += 1;
      left = { kind: 'binary', op: token.value as '*' | '/' | '%', left, right: parseUnary(), start: token.start };
    }
    return left;
  }

  function parseUnary(): Expr {
    const token = peek();
    if (isOp(token, '-', '+')) {
      pos += 1;
      enter(token.start);
      const operand = parseUnary();
      depth -= 1;
      return { kind: 'unary', op: token.value as '-' | '+', operand, start: token.start };
    }
    return parsePower();
  }

  function parsePower(): Expr {
    const base = parsePrimary();
    if (isOp(peek(), '^')) {
      const token = peek();
      pos += 1;
      enter(token.start);
      const exponent = parseUnary();
      depth -= 1;
      return { kind: 'binary', op: '^', left: base, right: exponent, start: token.start };
    }
    return base;
  }

  function parsePrimary(): Expr {
    const token = peek();
    switch (token.type) {
      case 'number':
        pos += 1;
        return { kind: 'number', value: token.value, start: token.start };
      case 'string':
        pos += 1;
        return { kind: 'string', value: token.value, start: token.start };
      case 'identifier': {
        pos += 1;
        const lower = token.value.toLowerCase();
        if (isOp(peek(), '(')) {
          if (KEYWORDS.has(lower)) throw syntaxError(`"${token.value}" 是关键字，不能作为函数名`, token.start);
          pos += 1;
          enter(token.start);
          const args: Expr[] = [];
          if (!isOp(peek(), ')')) {
            for (;;) {
              args.push(parseOr());
              if (!isOp(peek(), ',')) break;
              pos += 1;
            }
          }
          expectOp(')');
          depth -= 1;
          return { kind: 'call', callee: lower, args, start: token.start };
        }
        if (lower === 'true' || lower === 'false') {
          return { kind: 'boolean', value: lower === 'true', start: token.start };
        }
        if (lower === 'null') return { kind: 'null', start: token.start };
        if (KEYWORDS.has(lower)) throw syntaxError(`此处不能出现关键字 "${token.value}"`, token.start);
        return { kind: 'identifier', name: token.value, start: token.start };
      }
      case 'operator': {
        if (token.value === '(') {
          pos += 1;
          enter(token.start);
          const inner = parseOr();
          expectOp(')');
          depth -= 1;
          return inner;
        }
        throw syntaxError(`此处不能出现 "${token.text}"`, token.start);
      }
      case 'end':
        throw syntaxError('表达式不完整', token.start);
    }
  }

  if (peek().type === 'end') throw syntaxError('表达式为空', 0);
  const expr = parseOr();
  const rest = peek();
  if (rest.type !== 'end') throw syntaxError(`多余的内容 ${describe(rest)}`, rest.start);
  return expr;
}
