import type { Expr, Value } from './ast.js';
import { ExpressionError } from './errors.js';
import { FUNCTIONS, isBlank, toNum, truthy, type ExpressionEnv } from './functions.js';
import { parseExpression } from './parser.js';

type Fn = (env: ExpressionEnv) => Value;

/** The function that reads another form of the same patient: `form("手术记录", "op_at")`. */
export const FORM_FUNCTION = 'form';

/** An item of another form an expression reads: the form by its title, the item by its name. */
export interface FormReference {
  form: string;
  item: string;
}

interface Collected {
  deps: Set<string>;
  forms: Map<string, FormReference>;
}

export interface CompiledExpression {
  readonly source: string;
  readonly ast: Expr;
  /** Item names the expression reads, in order of first use: the edges of the dependency graph. */
  readonly dependencies: readonly string[];
  /** Items of other forms it reads through form(); the server loads them before evaluating. */
  readonly formReferences: readonly FormReference[];
  /** Never throws for any item values: missing or unreadable input gives null. */
  evaluate(env: ExpressionEnv): Value;
}

/**
 * Blank-aware equality. Blank equals only blank; a blank against a value is unknown (null), so a
 * check such as "sbp != 0" raises nothing while the item is still empty. An array (checkbox)
 * equals a value it contains.
 */
function equals(a: Value, b: Value): boolean | null {
  const blankA = isBlank(a);
  const blankB = isBlank(b);
  if (blankA || blankB) return blankA && blankB ? true : null;
  if (Array.isArray(a)) return Array.isArray(b) ? sameList(a, b) : a.some((v) => equals(v, b) === true);
  if (Array.isArray(b)) return b.some((v) => equals(a, v) === true);
  if (typeof a === 'boolean' || typeof b === 'boolean') return truthy(a) === truthy(b);
  const na = toNum(a);
  const nb = toNum(b);
  if (na !== null && nb !== null) return na === nb;
  return String(a) === String(b);
}

function sameList(a: Value[], b: Value[]): boolean {
  const left = a.map(String).sort();
  const right = b.map(String).sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}

function order(a: Value, b: Value): number | null {
  if (isBlank(a) || isBlank(b) || Array.isArray(a) || Array.isArray(b)) return null;
  const na = toNum(a);
  const nb = toNum(b);
  if (na !== null && nb !== null) return na - nb;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

function arithmetic(op: '+' | '-' | '*' | '/' | '%' | '^', a: Value, b: Value): Value {
  const x = toNum(a);
  const y = toNum(b);
  if (x === null || y === null) return null;
  switch (op) {
    case '+':
      return finite(x + y);
    case '-':
      return finite(x - y);
    case '*':
      return finite(x * y);
    case '/':
      return y === 0 ? null : finite(x / y);
    case '%':
      return y === 0 ? null : finite(x % y);
    case '^':
      return finite(x ** y);
  }
}

const bool3 = (v: Value): boolean | null => (v === null ? null : truthy(v));

function compileNode(node: Expr, seen: Collected): Fn {
  switch (node.kind) {
    case 'number': {
      const value = node.value;
      return () => value;
    }
    case 'string': {
      const value = node.value;
      return () => value;
    }
    case 'boolean': {
      const value = node.value;
      return () => value;
    }
    case 'null':
      return () => null;
    case 'identifier': {
      const name = node.name;
      seen.deps.add(name);
      return (env) => env.get(name);
    }
    case 'unary': {
      const operand = compileNode(node.operand, seen);
      switch (node.op) {
        case 'not':
          return (env) => {
            const v = bool3(operand(env));
            return v === null ? null : !v;
          };
        case '-':
          return (env) => {
            const n = toNum(operand(env));
            return n === null ? null : -n;
          };
        case '+':
          return (env) => toNum(operand(env));
      }
      break;
    }
    case 'logical': {
      const left = compileNode(node.left, seen);
      const right = compileNode(node.right, seen);
      // Three-valued logic: an unknown (blank) side decides nothing on its own.
      if (node.op === 'and') {
        return (env) => {
          const l = bool3(left(env));
          if (l === false) return false;
          const r = bool3(right(env));
          if (r === false) return false;
          return l === null || r === null ? null : true;
        };
      }
      return (env) => {
        const l = bool3(left(env));
        if (l === true) return true;
        const r = bool3(right(env));
        if (r === true) return true;
        return l === null || r === null ? null : false;
      };
    }
    case 'binary': {
      const left = compileNode(node.left, seen);
      const right = compileNode(node.right, seen);
      const op = node.op;
      switch (op) {
        case '==':
          return (env) => equals(left(env), right(env));
        case '!=':
          return (env) => {
            const eq = equals(left(env), right(env));
            return eq === null ? null : !eq;
          };
        case '<':
        case '<=':
        case '>':
        case '>=':
          return (env) => {
            const c = order(left(env), right(env));
            if (c === null) return null;
            return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
          };
        case '+':
        case '-':
        case '*':
        case '/':
        case '%':
        case '^':
          return (env) => arithmetic(op, left(env), right(env));
      }
      break;
    }
    case 'call': {
      if (node.callee === FORM_FUNCTION) return compileFormReference(node, seen);
      const spec = FUNCTIONS.get(node.callee);
      if (!spec) throw new ExpressionError('unknown_function', `未知的函数 ${node.callee}()`, node.start);
      if (node.args.length < spec.min || node.args.length > spec.max) {
        const expected = spec.min === spec.max ? `${spec.min}` : `${spec.min} 到 ${spec.max}`;
        throw new ExpressionError(
          'arity',
          `函数 ${node.callee}() 需要 ${expected} 个参数，实际为 ${node.args.length} 个`,
          node.start,
        );
      }
      const args = node.args.map((arg) => compileNode(arg, seen));
      if (node.callee === 'if') {
        const [cond, then, otherwise] = args as [Fn, Fn, Fn];
        return (env) => (truthy(cond(env)) ? then(env) : otherwise(env));
      }
      const fn = spec.fn;
      return (env) =>
        fn(
          args.map((arg) => arg(env)),
          env,
        );
    }
  }
  throw new ExpressionError('syntax', '无法识别的表达式', null);
}

/**
 * form(title, item) names both by string literals, so the forms and items an expression reads are
 * known when it compiles (the server loads them in one query before a save, the linter checks them)
 * and never depend on data.
 */
function compileFormReference(node: Extract<Expr, { kind: 'call' }>, seen: Collected): Fn {
  if (node.args.length !== 2) {
    throw new ExpressionError(
      'arity',
      `函数 ${FORM_FUNCTION}() 需要 2 个参数，实际为 ${node.args.length} 个`,
      node.start,
    );
  }
  const [form, item] = node.args as [Expr, Expr];
  if (form.kind !== 'string' || item.kind !== 'string' || form.value.trim() === '' || item.value.trim() === '') {
    throw new ExpressionError(
      'syntax',
      `表达式语法错误（第 ${node.start + 1} 个字符）：form() 的两个参数必须是写在引号中的表单标题和题目名称，例如 form("手术记录", "op_at")`,
      node.start,
    );
  }
  const reference = { form: form.value, item: item.value };
  seen.forms.set(`${reference.form}\u0000${reference.item}`, reference);
  return (env) => (env.form ? env.form(reference.form, reference.item) : null);
}

/** Results the engine can use: NaN and non-finite numbers become null (forms §5: they are ignored). */
function clean(value: Value): Value {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  return null;
}

function build(source: string): CompiledExpression {
  const ast = parseExpression(source);
  const seen: Collected = { deps: new Set(), forms: new Map() };
  const fn = compileNode(ast, seen);
  return {
    source,
    ast,
    dependencies: [...seen.deps],
    formReferences: [...seen.forms.values()],
    evaluate(env) {
      try {
        return clean(fn(env));
      } catch (error) {
        if (error instanceof ExpressionError) throw error;
        throw new ExpressionError('runtime', `表达式无法计算：${source}`, null);
      }
    },
  };
}

const CACHE_LIMIT = 2000;
const cache = new Map<string, CompiledExpression>();

/**
 * Parses and compiles once per source text; later calls hit the cache. Throws ExpressionError
 * for a broken expression, which the linter reports at upload.
 */
export function compileExpression(source: string): CompiledExpression {
  const hit = cache.get(source);
  if (hit) return hit;
  const compiled = build(source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(source, compiled);
  return compiled;
}

/** A scope over a plain record that only sees its own keys, never anything inherited. */
export function recordEnv(
  values: Readonly<Record<string, unknown>>,
  clock: { today: string; now: string },
): ExpressionEnv {
  return {
    get: (name) => (Object.hasOwn(values, name) ? toValue(values[name]) : null),
    today: () => clock.today,
    now: () => clock.now,
  };
}

/** Stored values as expression values: numbers, strings, booleans, arrays of those; objects become null. */
export function toValue(raw: unknown): Value {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'number' || typeof raw === 'string' || typeof raw === 'boolean') return raw;
  if (Array.isArray(raw)) return raw.map(toValue);
  return null;
}

/** One-off evaluation for tests and tools; the engine keeps compiled expressions instead. */
export function evaluateExpression(
  source: string,
  values: Readonly<Record<string, unknown>> = {},
  clock: { today: string; now: string } = { today: '', now: '' },
): Value {
  return compileExpression(source).evaluate(recordEnv(values, clock));
}
