import { canonicalValue } from './record-values.js';
import type { MissingMarks } from './missing-codes.js';

/**
 * 双份录入 (issue 37): a paper CRF typed twice, blind, by two users; a third compares the two entries and decides
 * each difference. One rule for "do the two entries agree on this item", shared by the server (the compare and the
 * reconcile refusals) and the browser (the highlighted rows).
 */

/** One entry as typed: its values and its 缺失原因 marks. */
export interface DoubleEntryValues {
  values: Readonly<Record<string, unknown>>;
  missing?: MissingMarks | null;
}

/** An item on which the two entries disagree: each side's value and mark (null when it has none). */
export interface DoubleEntryDifference {
  itemName: string;
  entry1: unknown;
  entry2: unknown;
  missing1: string | null;
  missing2: string | null;
}

/** How the reconciler decides one difference: take an entry's side, or type the value (or a mark) from the paper. */
export type DoubleEntryDecision = 'entry1' | 'entry2' | { value?: unknown; missing?: string | null };

// A plain decimal as people type it: "120", "120.0", "-0.5", ".5". Not "1e3" or "0x10": those stay text.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * The value as the comparison reads it: the engine's canonical value (numbers as text, empty is absent, object keys
 * ordered), then text trimmed and a plain decimal read as its number, so "120", " 120" and "120.0" typed from the
 * same paper agree. Anything else compares exactly, as the engine's change detection does.
 */
function comparable(value: unknown): unknown {
  const canonical = canonicalValue(value);
  if (typeof canonical === 'string') {
    const text = canonical.trim();
    if (DECIMAL.test(text)) return `#${Number(text)}`;
    return text === '' ? null : text;
  }
  if (Array.isArray(canonical)) return canonical.map(comparable);
  if (canonical && typeof canonical === 'object') {
    return Object.fromEntries(Object.entries(canonical).map(([k, v]) => [k, comparable(v)]));
  }
  return canonical;
}

/** Whether two typed values are the same value for double entry. */
export function sameEntryValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
}

const markOf = (marks: MissingMarks | null | undefined, name: string): string | null =>
  (marks && Object.hasOwn(marks, name) ? marks[name] : null) || null;

/** The items on which the entries differ, by value or by mark, in a stable order (entry 1's items first). */
export function compareDoubleEntries(one: DoubleEntryValues, two: DoubleEntryValues): DoubleEntryDifference[] {
  const names = [
    ...new Set([
      ...Object.keys(one.values),
      ...Object.keys(one.missing ?? {}),
      ...Object.keys(two.values),
      ...Object.keys(two.missing ?? {}),
    ]),
  ];
  const out: DoubleEntryDifference[] = [];
  for (const itemName of names) {
    const missing1 = markOf(one.missing, itemName);
    const missing2 = markOf(two.missing, itemName);
    const entry1 = one.values[itemName] ?? null;
    const entry2 = two.values[itemName] ?? null;
    if (missing1 === missing2 && sameEntryValue(entry1, entry2)) continue;
    out.push({ itemName, entry1, entry2, missing1, missing2 });
  }
  return out;
}

export type ReconcileProblem =
  { kind: 'undecided'; itemNames: string[] } | { kind: 'not_a_difference'; itemNames: string[] };

/**
 * The reconciled record: every item on which the entries agree as entry 1 typed it, every difference as decided.
 * Every difference needs a decision, and a decision on an item that is no difference is refused (the reconciler
 * decided on something other than what the compare showed): either returns the problem instead.
 */
export function reconcileDoubleEntries(
  one: DoubleEntryValues,
  two: DoubleEntryValues,
  decisions: Readonly<Record<string, DoubleEntryDecision>>,
):
  | { ok: true; values: Record<string, unknown>; missing: Record<string, string>; differences: DoubleEntryDifference[] }
  | { ok: false; problem: ReconcileProblem } {
  const differences = compareDoubleEntries(one, two);
  const differing = new Set(differences.map((d) => d.itemName));
  const extra = Object.keys(decisions).filter((name) => !differing.has(name));
  if (extra.length > 0) return { ok: false, problem: { kind: 'not_a_difference', itemNames: extra } };
  const undecided = [...differing].filter((name) => !Object.hasOwn(decisions, name));
  if (undecided.length > 0) return { ok: false, problem: { kind: 'undecided', itemNames: undecided } };

  const values: Record<string, unknown> = { ...one.values };
  const missing: Record<string, string> = { ...(one.missing ?? {}) };
  for (const d of differences) {
    const decision = decisions[d.itemName]!;
    const [value, mark] =
      decision === 'entry1'
        ? [d.entry1, d.missing1]
        : decision === 'entry2'
          ? [d.entry2, d.missing2]
          : [decision.value ?? null, decision.missing ?? null];
    if (value === null || value === undefined) delete values[d.itemName];
    else values[d.itemName] = value;
    if (mark) missing[d.itemName] = mark;
    else delete missing[d.itemName];
  }
  return { ok: true, values, missing, differences };
}
