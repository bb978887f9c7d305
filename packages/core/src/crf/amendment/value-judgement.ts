import type { NodeInfo } from '../compile-form.js';
import type { CrfNode } from '../crf-definition.schema.js';
import { todayString } from '../date-time.js';
import type { EvaluationContext, ItemState } from '../evaluate-form.js';
import { isEmptyValue, itemRule, validateField } from '../field-rules.js';
import { itemTypeOf } from '../item-types/registry.js';
import { sliderRange } from '../layout.js';
import { sameValue } from '../record-values.js';
import { normalizeValue } from '../value-shapes.js';
import type { AmendmentRecord, MigrationOptions, ValueChangeKind } from './amendment-types.js';

/**
 * The pieces of a migration's judgement of one value: how a value converts to its item's new type, whether a
 * value the new version refuses is out of its range or otherwise invalid, and the evaluation context a save uses.
 */

/** The per-record part of what the engine's evaluation reads (the save passes the same). */
export type RecordContext = Pick<AmendmentRecord, 'gender' | 'forms' | 'missing' | 'referenceRanges'>;

/** An instant that falls on `today` in `timeZone`: noon UTC, moved half a day for the zones it misses. */
export function instantOn(today: string, timeZone: string): Date {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  let at = Date.UTC(y, m - 1, d, 12);
  for (let i = 0; i < 3; i += 1) {
    const local = todayString(new Date(at), timeZone);
    if (local === today) break;
    at += (local < today ? 1 : -1) * 12 * 3_600_000;
  }
  return new Date(at);
}

/** The context a save would evaluate the record with (judgeSave): now, the study's zone, sex, other forms. */
export function migrationContext(options: MigrationOptions, record: RecordContext = {}): EvaluationContext {
  const context: EvaluationContext = {
    now: options.now ?? instantOn(options.today, options.timeZone),
    timeZone: options.timeZone,
    gender: record.gender ?? null,
  };
  if (record.forms) context.forms = record.forms;
  if (record.missing) context.missing = record.missing;
  if (record.referenceRanges) context.referenceRanges = record.referenceRanges;
  if (options.spineBandSet) context.spineBandSet = options.spineBandSet;
  return context;
}

/** The type's own judgement of a value's shape: a number that is a number, a choice that exists, a real date. */
function shapeError(node: CrfNode, value: unknown, today: string): string | null {
  const type = itemTypeOf(node.type);
  if (type.bounded) {
    const error = validateField(value, { type: type.bounded.fieldType });
    if (error !== null) return error;
  }
  return type.validate?.(value, node, { today }) ?? null;
}

export interface Conversion {
  /** The value to evaluate (and, when lossy, to keep). */
  value: unknown;
  /** The new type's normalize would lose or garble it: the value is kept as it was and reported invalid. */
  lossy: boolean;
}

/**
 * A stored value under its item's new node. Kept when the new type's normalize leaves it the same value; else
 * converted by that normalize when the conversion is lossless: read back by the old type it is the value it was,
 * and the new type accepts its shape (a number is a number, a choice one of the choices, a date a date). Anything
 * else is lossy: the value is kept as it was.
 */
export function convertValue(oldNode: CrfNode | undefined, newNode: CrfNode, raw: unknown, today: string): Conversion {
  if (isEmptyValue(raw)) return { value: raw, lossy: false };
  const converted = normalizeValue(newNode, raw);
  if (sameValue(converted, raw)) return { value: raw, lossy: false };
  const readBack = oldNode ? sameValue(normalizeValue(oldNode, converted), normalizeValue(oldNode, raw)) : true;
  const lossless = !isEmptyValue(converted) && readBack && shapeError(newNode, converted, today) === null;
  return lossless ? { value: converted, lossy: false } : { value: raw, lossy: true };
}

/** Whether a value the new version refuses breaks only its bounds (validate.min/max, a slider's range). */
function outOfBounds(node: CrfNode, value: unknown): boolean {
  if (node.type === 'slider') {
    const { min, max } = sliderRange(node.option);
    return typeof value === 'number' && (value < min || value > max);
  }
  const rule = itemRule(node);
  if (rule.type !== 'int' && rule.type !== 'float') return false;
  if (validateField(value, { type: rule.type, precision: rule.precision ?? null }) !== null) return false;
  const n = Number(String(value).trim());
  return (rule.min != null && n < rule.min) || (rule.max != null && n > rule.max);
}

const RANGE_TEXT = { low: '偏低', high: '偏高' } as const;

/**
 * What the new version newly says about a filled, visible value it keeps: errors it did not have under the old
 * version (its own rule or a cross-field check: invalid; its new bounds: outOfRange) and a reference-range
 * indicator it did not have (outOfRange). Blank values are not judged: a newly required item left blank is no
 * value to report. `stateBefore` reads the item's state under the old version when the item kept its type there.
 */
export function newFindings(
  info: NodeInfo,
  state: ItemState | undefined,
  stateBefore: () => ItemState | undefined,
): Array<{ kind: ValueChangeKind; message: string }> {
  if (!state?.visible || isEmptyValue(state.value)) return [];
  if (state.errors.length === 0 && state.range === null) return [];
  const before = stateBefore();
  const out: Array<{ kind: ValueChangeKind; message: string }> = [];
  const had = before?.visible ? before.errors : [];
  const fresh = state.errors.filter((message) => !had.includes(message));
  const ownError = state.errors[0];
  const bounds = ownError !== undefined && fresh.includes(ownError) && outOfBounds(info.node, state.value);
  if (bounds) out.push({ kind: 'outOfRange', message: ownError });
  const others = fresh.filter((message) => !(bounds && message === ownError));
  if (others.length > 0) out.push({ kind: 'invalid', message: others.join('；') });
  if (state.range !== null && before?.range !== state.range) {
    const message = `超出参考值范围（${RANGE_TEXT[state.range]}）`;
    const existing = out.find((f) => f.kind === 'outOfRange');
    if (existing) existing.message = `${existing.message}；${message}`;
    else out.push({ kind: 'outOfRange', message });
  }
  return out;
}
