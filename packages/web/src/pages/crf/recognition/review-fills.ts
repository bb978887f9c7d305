import type { CrfNode, RecognisedEntry, RecognisedFill } from '@ecrf/core';
import type { RecognitionOutcome } from './recognise-flow';

/**
 * The review step of 智能识别 (docs/recognition.md, "Filling"): every proposed value is shown beside its crop of
 * the report, so the nurse confirms what she sees; a value the mapping's plausibility gate doubts ('offer') is
 * offered unchecked, the others are checked, and only the checked ones are filled into the form.
 */

/** What the mapping's plausibility gate says of a fill: 'fill' pre-checked, 'offer' left for the nurse to tick. */
export type FillVerdict = 'fill' | 'offer';

/** A fill as the review reads it: the gate's verdict and reasons, the entry's crop (absent from older answers). */
type ReviewedFill = RecognisedFill & {
  verdict?: FillVerdict;
  reasons?: readonly string[];
  entry: RecognisedEntry & { crop?: unknown };
};

export interface ReviewRow {
  /** The item's name: the key of the row and of its value in the form. */
  itemName: string;
  itemTitle: string;
  /** The value as the nurse reads it: a choice by its option text, anything else as it goes into the form. */
  shown: string;
  /** The report's own unit of the value, shown beside it. */
  unit: string;
  /** The row's crop of the report image (a data URL), or null when the answer carried none. */
  crop: string | null;
  verdict: FillVerdict;
  reasons: readonly string[];
}

/** Only an image data URL is shown as the crop: an answer is data, never a link to follow. */
const CROP_URL = /^data:image\/(?:jpeg|png|webp);base64,[A-Za-z0-9+/]+=*$/;

export function cropOf(value: unknown): string | null {
  return typeof value === 'string' && CROP_URL.test(value) ? value : null;
}

const CHOICE = new Set(['radio', 'select']);
const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

function findNode(nodes: readonly CrfNode[], name: string): CrfNode | undefined {
  for (const node of nodes) {
    if (node.name === name && node.children.length === 0) return node;
    const inner = findNode(node.children, name);
    if (inner) return inner;
  }
  return undefined;
}

/** A choice's option text for the value filled (its option value), as the form will show it. */
function shownValue(node: CrfNode | undefined, value: string): string {
  if (!node || !CHOICE.has(node.type)) return value;
  const values = text(node.option.optionsValue).split(',');
  const texts = text(node.option.optionsText).split(',');
  const at = values.findIndex((v) => v.trim() === value);
  return at >= 0 && texts[at] !== undefined ? texts[at]!.trim() : value;
}

/** The review's rows, in the order the mapping filled them, each with its verdict (a fill without one is 'fill'). */
export function reviewRows(filled: readonly RecognisedFill[], scope: readonly CrfNode[]): ReviewRow[] {
  return (filled as readonly ReviewedFill[]).map((fill) => {
    const node = findNode(scope, fill.itemName);
    return {
      itemName: fill.itemName,
      itemTitle: fill.itemTitle,
      shown: shownValue(node, fill.value),
      unit: node && CHOICE.has(node.type) ? '' : fill.entry.unit,
      crop: cropOf(fill.entry.crop),
      verdict: fill.verdict === 'offer' ? 'offer' : 'fill',
      reasons: fill.verdict === 'offer' ? (fill.reasons ?? []) : [],
    };
  });
}

/** The items checked when the review opens: those the gate lets fill; the doubtful ones are offered unchecked. */
export function initialSelection(rows: readonly ReviewRow[]): Set<string> {
  return new Set(rows.filter((row) => row.verdict === 'fill').map((row) => row.itemName));
}

/** The selection with one item ticked or unticked. */
export function toggled(selected: ReadonlySet<string>, itemName: string, checked: boolean): Set<string> {
  const next = new Set(selected);
  if (checked) next.add(itemName);
  else next.delete(itemName);
  return next;
}

/**
 * The outcome as the page fills it: the checked items' values only. The fills left unchecked are not filled and
 * not marked 识别; everything else of the recognition (its id, its image) stays, for the source image (SDV).
 */
export function chosenOutcome(outcome: RecognitionOutcome, selected: ReadonlySet<string>): RecognitionOutcome {
  const filled = outcome.filled.filter((fill) => selected.has(fill.itemName));
  const values: Record<string, string> = {};
  for (const fill of filled) values[fill.itemName] = fill.value;
  return { ...outcome, filled, values };
}
