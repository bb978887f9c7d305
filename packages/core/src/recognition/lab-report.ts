import { knownAnalyte } from './analytes.js';
import { LEADING_CODE_RE, parseLabRow } from './lab-row.js';
import {
  boundsOf,
  groupRows,
  meanConfidence,
  type HeaderColumn,
  type OcrLine,
  type PlacedPiece,
  type RowBox,
} from './lab-rows.js';
import { flagOf, headerWords, isCode, rowTokens, valueOf } from './lab-text.js';
import { canonicalUnit } from './units.js';

export { groupRows, type OcrLine, type PageRow, type RowBox } from './lab-rows.js';
export { flagAgainstRange, parseLabRow } from './lab-row.js';
export { normaliseReportText } from './lab-text.js';

export type LabFlag = '↑' | '↓' | '';

/** One analyte row of a lab report. */
export interface LabRow {
  /** As printed, a leading `*` kept (the mapping strips it). */
  name: string;
  /** The printed code, else the known analyte's, else ''. */
  code: string;
  /** A number as printed (`6.52`, `<0.5`), a count range (`1-2`), or a qualitative result as printed (`阴性(-)`). */
  value: string;
  /** In its one spelling (units.ts). */
  unit: string;
  referenceRange: string;
  flag: LabFlag;
  /** The mean OCR confidence of the row's text. */
  confidence: number;
  /**
   * Where the row was read, in the pixels of the image the OCR read (the levelled one): its pieces' bounds as
   * [left, top, right, bottom]. The crop the nurse confirms a value against is cut from it.
   */
  box?: readonly [number, number, number, number];
  /** The row's crop of the image, a `data:image/jpeg;base64,…` URL, for the nurse to confirm the value against. */
  crop?: string;
}

/** Whether a piece starts an analyte: a name (or a code or number read against one), not a result or a unit. */
function startsAnalyte(text: string): boolean {
  const first = rowTokens(text)[0];
  if (!first) return false;
  const bare = first.replace(/^\(?\d{1,3}[.、)]?(?=[\u3400-\u9fff])/, '');
  const glued = LEADING_CODE_RE.test(bare);
  return (
    (/^\*?[\u3400-\u9fffαβγ]/.test(bare) || glued) &&
    !valueOf(bare) &&
    !flagOf(bare) &&
    !canonicalUnit(bare) &&
    !headerWords(bare)
  );
}

/** Pieces that may lead an analyte's name: its sequence number, its code. */
const leads = (text: string) => /^\(?\d{1,3}[.、)]?$/.test(text) || isCode(text);

/** Where in a row's cells an analyte may start: each name's cell, or the sequence number and code leading it. */
function analyteStarts(texts: readonly string[]): number[] {
  const out: number[] = [];
  texts.forEach((text, i) => {
    if (!startsAnalyte(text)) return;
    let from = i;
    while (from > 0 && leads(texts[from - 1]!)) from--;
    out.push(from);
  });
  return out;
}

/**
 * Whether what follows a row's analyte is another analyte, not a method or remark column with a number in it: it
 * has a unit or a range, or names a known analyte.
 */
function anotherAnalyte(text: string): boolean {
  const row = parseLabRow(text);
  if (!row) return false;
  return Boolean(row.unit || row.referenceRange || knownAnalyte(row.name) || (row.code && knownAnalyte(row.code)));
}

/**
 * A row of the page holding two analytes or more (tables side by side without a header to tell them apart), split
 * before each piece that starts an analyte when what comes before it is an analyte of its own: its sequence number
 * and code go with the name they lead.
 */
function analytesOf(pieces: readonly PlacedPiece[]): PlacedPiece[][] {
  const out: PlacedPiece[][] = [];
  let start = 0;
  const text = (from: number, to: number) =>
    pieces
      .slice(from, to)
      .map((p) => p.text)
      .join(' ');
  for (let i = start + 1; i < pieces.length; i++) {
    if (!startsAnalyte(pieces[i]!.text)) continue;
    let from = i;
    while (from - 1 > start && leads(pieces[from - 1]!.text)) from--;
    for (; from <= i; from++) {
      if (parseLabRow(text(start, from)) && anotherAnalyte(text(from, pieces.length))) break;
    }
    if (from > i) continue;
    out.push(pieces.slice(start, from));
    start = from;
    i = from;
  }
  out.push(pieces.slice(start));
  return out;
}

/**
 * Whether a row's value was read from under its table's reference-range header: the OCR lost the result (a lone
 * `-` or `+` is easily missed) and its range (`正常`, `阴性`, `<21`) was taken for it. Judged only where the cell's
 * place was measured: an OCR piece of its own, or the first or last cell of a piece read over several.
 */
function valueUnderRange(pieces: readonly PlacedPiece[], value: string, header: readonly HeaderColumn[]): boolean {
  if (!header.some((h) => h.cls === 'value') || !header.some((h) => h.cls === 'range')) return false;
  // The first cell holding it (a range printed like the value comes after it).
  const piece = pieces.find((p) => rowTokens(p.text).some((t) => t === value || valueOf(t) === value));
  if (!piece || (piece.cell > 0 && piece.cell < piece.cells - 1)) return false;
  const centre = (piece.left + piece.right) / 2;
  const off = (h: HeaderColumn) => Math.abs((h.from + h.to) / 2 - centre);
  return header.reduce((a, b) => (off(b) < off(a) ? b : a)).cls === 'range';
}

interface Found {
  row: LabRow;
  band: number;
  column: number;
  left: number;
  height: number;
  y: number;
}

/**
 * Tables side by side without a header to tell them apart: within a table of the page, rows that start further
 * right than a name column is wide (eight text heights) from the others are another table, read after them.
 */
function tablesWithoutHeader(found: readonly Found[]): (f: Found) => number {
  const edges = new Map<string, number[]>();
  const keyOf = (f: Found) => `${f.band}/${f.column}`;
  for (const key of new Set(found.map(keyOf))) {
    const rows = found.filter((f) => keyOf(f) === key);
    const height = rows.map((f) => f.height).sort((a, b) => a - b)[Math.floor(rows.length / 2)]!;
    const lefts = rows.map((f) => f.left).sort((a, b) => a - b);
    edges.set(
      key,
      lefts.filter((x, i) => i > 0 && x - lefts[i - 1]! > 8 * height),
    );
  }
  return (f) => edges.get(keyOf(f))!.filter((x) => f.left >= x).length;
}

/**
 * The analyte rows of a lab report from the OCR's pieces of text, each with where it was read: table by table (a
 * left table before the right one), top to bottom.
 */
export function parseLabReport(lines: readonly OcrLine[]): LabRow[] {
  const found: Found[] = [];
  for (const pageRow of groupRows(lines, analyteStarts)) {
    for (const pieces of analytesOf(pageRow.pieces)) {
      const parsed = parseLabRow(pieces.map((p) => p.text).join(' '), meanConfidence(pieces));
      if (!parsed || (pageRow.header && valueUnderRange(pieces, parsed.value, pageRow.header))) continue;
      const box: RowBox = boundsOf(pieces.flatMap((p) => p.box));
      const { band, column, y } = pageRow;
      found.push({
        row: { ...parsed, box },
        band,
        column,
        left: pieces[0]!.left,
        height: pieces[0]!.height,
        y,
      });
    }
  }
  const table = tablesWithoutHeader(found);
  found.sort((a, b) => a.band - b.band || a.column - b.column || table(a) - table(b) || a.y - b.y || a.left - b.left);
  return found.map((f) => f.row);
}
