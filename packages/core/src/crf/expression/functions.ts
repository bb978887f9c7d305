import { formatDateParts, fullYearsBetween, parseDateTime, wallMillis, type DateTimeParts } from '../date-time.js';
import { roundNumber } from '../value-converter.js';
import { spineCobbTargetValue } from '../../spine/cobb-item.js';
import { spineMeasureTargetValue } from '../../spine/item-value.js';
import type { Value } from './ast.js';

/** What a running expression may see: item values by name, the clock, and the patient's other forms. Nothing else. */
export interface ExpressionEnv {
  get(name: string): Value;
  today(): string;
  now(): string;
  /** `form("手术记录", "op_at")`: an item of the patient's newest record of another form; blank when there is none. */
  form?(title: string, item: string): Value;
}

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function isBlank(v: Value): boolean {
  return v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** A number, or null for blanks and anything that does not read as one. */
export function toNum(v: Value): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const t = v.trim();
    return NUMERIC.test(t) ? Number(t) : null;
  }
  return null;
}

export function truthy(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (Array.isArray(v)) return v.length > 0;
  const n = toNum(v);
  return n === null ? v !== '' : n !== 0;
}

export function flatten(args: readonly Value[]): Value[] {
  const out: Value[] = [];
  for (const arg of args) {
    if (Array.isArray(arg)) out.push(...flatten(arg));
    else out.push(arg);
  }
  return out;
}

const numbersOf = (args: readonly Value[]) =>
  flatten(args).flatMap((v) => {
    const n = toNum(v);
    return n === null ? [] : [n];
  });

function dateOf(v: Value, env: ExpressionEnv): DateTimeParts | null {
  if (typeof v !== 'string') return null;
  const lower = v.trim().toLowerCase();
  if (lower === 'today') return parseDateTime(env.today());
  if (lower === 'now') return parseDateTime(env.now());
  return parseDateTime(v);
}

const DAY_MS = 86_400_000;
// REDCap's lengths of a year and a month, so that translated calculations give its answers.
const UNIT_MS: Record<string, number> = {
  y: 365.2425 * DAY_MS,
  M: 30.44 * DAY_MS,
  w: 7 * DAY_MS,
  d: DAY_MS,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
};

const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

function rounding(mode: 'R' | 'U' | 'D') {
  return (args: Value[]): Value => {
    const x = toNum(args[0] ?? null);
    const digits = args.length > 1 ? toNum(args[1]!) : 0;
    if (x === null || digits === null || !Number.isInteger(digits) || digits < 0 || digits > 10) return null;
    return roundNumber(x, digits, mode);
  };
}

export interface FunctionSpec {
  min: number;
  max: number;
  fn: (args: Value[], env: ExpressionEnv) => Value;
}

/**
 * The whitelist. A Map, so a name like "constructor" or "__proto__" can never resolve to anything
 * inherited. Every function answers null for missing or unreadable input instead of throwing.
 * `if` is here for arity checks; it is evaluated lazily by the compiler.
 */
export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['if', { min: 3, max: 3, fn: (args) => (truthy(args[0]!) ? args[1]! : args[2]!) }],
  [
    'sum',
    {
      min: 1,
      max: 100,
      fn: (args) => {
        const ns = numbersOf(args);
        return ns.length === 0 ? null : finite(ns.reduce((a, b) => a + b, 0));
      },
    },
  ],
  [
    'min',
    {
      min: 1,
      max: 100,
      fn: (args) => {
        const ns = numbersOf(args);
        return ns.length === 0 ? null : Math.min(...ns);
      },
    },
  ],
  [
    'max',
    {
      min: 1,
      max: 100,
      fn: (args) => {
        const ns = numbersOf(args);
        return ns.length === 0 ? null : Math.max(...ns);
      },
    },
  ],
  [
    'mean',
    {
      min: 1,
      max: 100,
      fn: (args) => {
        const ns = numbersOf(args);
        return ns.length === 0 ? null : finite(ns.reduce((a, b) => a + b, 0) / ns.length);
      },
    },
  ],
  [
    'median',
    {
      min: 1,
      max: 100,
      fn: (args) => {
        const ns = numbersOf(args).sort((a, b) => a - b);
        if (ns.length === 0) return null;
        const mid = Math.floor(ns.length / 2);
        return ns.length % 2 === 1 ? ns[mid]! : (ns[mid - 1]! + ns[mid]!) / 2;
      },
    },
  ],
  ['count', { min: 1, max: 100, fn: (args) => flatten(args).filter((v) => !isBlank(v)).length }],
  ['round', { min: 1, max: 2, fn: rounding('R') }],
  ['roundup', { min: 1, max: 2, fn: rounding('U') }],
  ['rounddown', { min: 1, max: 2, fn: rounding('D') }],
  [
    'abs',
    {
      min: 1,
      max: 1,
      fn: ([x]) => {
        const n = toNum(x!);
        return n === null ? null : Math.abs(n);
      },
    },
  ],
  [
    'sqrt',
    {
      min: 1,
      max: 1,
      fn: ([x]) => {
        const n = toNum(x!);
        return n === null || n < 0 ? null : Math.sqrt(n);
      },
    },
  ],
  ['number', { min: 1, max: 1, fn: ([x]) => toNum(x!) }],
  // A spineCobb item's angle (pt, mt, tl; 2 decimals) or curve_type: the calculation of the items it names.
  ['spinecobb', { min: 2, max: 2, fn: ([value, key]) => spineCobbTargetValue(value, String(key)) }],
  // A spineMeasure item's number ("TK") or diagnosis ("TK.diagnosis"): the calculation of the items it names.
  ['spinemeasure', { min: 2, max: 2, fn: ([value, key]) => spineMeasureTargetValue(value, String(key)) }],
  [
    'bmi',
    {
      min: 2,
      max: 2,
      fn: ([w, h]) => {
        // Weight in kg, height in cm, the units Chinese CRFs collect.
        const weight = toNum(w!);
        const height = toNum(h!);
        if (weight === null || height === null || weight <= 0 || height <= 0) return null;
        return weight / (height / 100) ** 2;
      },
    },
  ],
  [
    'age',
    {
      min: 1,
      max: 2,
      fn: ([birth, at], env) => {
        const from = dateOf(birth!, env);
        const to = at === undefined ? parseDateTime(env.today()) : dateOf(at, env);
        if (!from || !to) return null;
        return fullYearsBetween(from, to);
      },
    },
  ],
  [
    'datediff',
    {
      min: 2,
      max: 3,
      fn: ([a, b, unit], env) => {
        // Signed: positive when the second date is later.
        const from = dateOf(a!, env);
        const to = dateOf(b!, env);
        const unitMs = UNIT_MS[typeof unit === 'string' ? unit : 'd'];
        if (!from || !to || unitMs === undefined) return null;
        return (wallMillis(to) - wallMillis(from)) / unitMs;
      },
    },
  ],
  ['today', { min: 0, max: 0, fn: (_args, env) => env.today() }],
  ['now', { min: 0, max: 0, fn: (_args, env) => env.now() }],
  [
    'date',
    {
      min: 1,
      max: 1,
      // The calendar day of a date-time: day counts such as post-operative days compare days, not hours.
      fn: ([d], env) => {
        const parts = dateOf(d!, env);
        return parts ? formatDateParts(parts) : null;
      },
    },
  ],
  ['year', { min: 1, max: 1, fn: ([d], env) => dateOf(d!, env)?.year ?? null }],
  ['month', { min: 1, max: 1, fn: ([d], env) => dateOf(d!, env)?.month ?? null }],
  ['day', { min: 1, max: 1, fn: ([d], env) => dateOf(d!, env)?.day ?? null }],
  ['isblank', { min: 1, max: 1, fn: ([x]) => isBlank(x!) }],
  ['isnumber', { min: 1, max: 1, fn: ([x]) => toNum(x!) !== null }],
  ['checked', { min: 2, max: 2, fn: ([x, code]) => (isChecked(x!, code!) ? 1 : 0) }],
  [
    'contains',
    {
      min: 2,
      max: 2,
      fn: ([x, part]) => {
        if (x === null || part === null || Array.isArray(part)) return false;
        return Array.isArray(x) ? isChecked(x, part) : String(x).includes(String(part));
      },
    },
  ],
  ['len', { min: 1, max: 1, fn: ([x]) => (Array.isArray(x) ? x.length : x === null ? 0 : String(x).length) }],
  [
    'concat',
    {
      min: 1,
      max: 100,
      fn: (args) =>
        flatten(args)
          .map((v) => (v === null ? '' : String(v)))
          .join(''),
    },
  ],
]);

/** Checkbox membership: the value may be an array or a comma string (forms §3). */
function isChecked(x: Value, code: Value): boolean {
  if (code === null || Array.isArray(code) || x === null) return false;
  const wanted = String(code);
  const members = Array.isArray(x)
    ? flatten(x)
    : String(x)
        .split(',')
        .map((v) => v.trim());
  return members.some((v) => v !== null && String(v) === wanted);
}
