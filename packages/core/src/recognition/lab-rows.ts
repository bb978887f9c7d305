/**
 * The OCR's pieces of text put back into the rows of the page: the page's skew taken out, the page split into the
 * tables printed side by side (双栏) where its header says so, and the pieces of each table put into rows.
 */
import { headerWords, type HeaderClass } from './lab-text.js';

/** One piece of text the OCR found: its text, its quadrilateral (clockwise from top left) and its confidence 0–1. */
export interface OcrLine {
  text: string;
  box: readonly (readonly [number, number])[];
  confidence: number;
}

/** The axis-aligned bounds of the pieces of one row: [left, top, right, bottom]. */
export type RowBox = readonly [number, number, number, number];

/** A piece placed on the levelled page: its centre, left and right edges after the skew is taken out. */
export interface PlacedPiece {
  /** Which OCR piece it is (or is a cell of), which cell of it, and of how many. */
  source: number;
  cell: number;
  cells: number;
  text: string;
  confidence: number;
  box: OcrLine['box'];
  x: number;
  y: number;
  left: number;
  right: number;
  height: number;
}

/** A row of the page: its pieces left to right, and which table (band of the page, column in it) it is in. */
export interface PageRow {
  text: string;
  confidence: number;
  box: RowBox;
  pieces: readonly PlacedPiece[];
  band: number;
  column: number;
  /** The row's centre from the top of the levelled page. */
  y: number;
  /** Its table's header columns, when the table has a header. */
  header?: readonly HeaderColumn[];
}

export function boundsOf(points: readonly (readonly [number, number])[]): RowBox {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The confidence of pieces together: their mean, weighted by their text's length. */
export function meanConfidence(pieces: readonly { text: string; confidence: number }[]): number {
  const weight = pieces.reduce((s, p) => s + p.text.length, 0);
  return pieces.reduce((s, p) => s + p.confidence * p.text.length, 0) / Math.max(1, weight);
}

/** A number or range with a name read against it: `15-40肌酐`, `0.02-0.52血小板压积`, `<10谷丙转氨酶`. */
const GLUED_NAME_RE = /^([<>≤≥]?\d+(?:\.\d+)?(?:[-~～—–]{1,2}\d+(?:\.\d+)?)?)([\u3400-\u9fff].*)$/;

/** How wide a character prints, in text heights: a CJK one about square, others about half. */
const charWidth = (c: string) => (/[\u3400-\u9fff\uff00-\uffef]/.test(c) ? 1 : 0.55);

/**
 * A piece holding several cells (the OCR joins cells that print close: `6.52 10^9/L`, or a left table's range
 * with the right table's name) as a piece per cell, each with its share of the quadrilateral by the width its
 * characters print; together they cover the piece exactly.
 */
function cells(line: OcrLine): OcrLine[] {
  const text = line.text.trim();
  // Cells: what spaces part, and a number or range read against the name after it (`15-40肌酐`: the left table's
  // range and the right table's name).
  const parts: { index: number; text: string }[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    const glued = GLUED_NAME_RE.exec(m[0]);
    if (glued) {
      parts.push({ index: m.index, text: glued[1]! }, { index: m.index + glued[1]!.length, text: glued[2]! });
    } else {
      parts.push({ index: m.index, text: m[0] });
    }
  }
  if (parts.length < 2 || line.box.length !== 4) return [{ ...line, text }];
  const [p0, p1, p2, p3] = line.box as readonly (readonly [number, number])[];
  // Where each character starts along the piece: the characters take the width they print, the gaps between
  // cells (a space in the text, however wide on the page) share what is left.
  const length = Math.hypot(p1![0] - p0![0], p1![1] - p0![1]);
  const height = Math.max(1, Math.hypot(p3![0] - p0![0], p3![1] - p0![1]));
  const chars = [...text];
  const printed = chars.map((c) => (/\s/.test(c) ? 0 : charWidth(c) * height));
  const gaps = chars.filter((c, i) => /\s/.test(c) && !/\s/.test(chars[i - 1] ?? '')).length;
  const inked = printed.reduce((a, b) => a + b, 0);
  const gap = gaps > 0 ? Math.max(0.5 * height, (length - inked) / gaps) : 0;
  const widths = chars.map((c, i) => (/\s/.test(c) ? (/\s/.test(chars[i - 1] ?? '') ? 0 : gap) : printed[i]!));
  const total = widths.reduce((a, b) => a + b, 0);
  // Offsets in code units to offsets in characters, for the widths.
  const at = (unit: number) => [...text.slice(0, unit)].length;
  const share = (char: number) => widths.slice(0, char).reduce((a, b) => a + b, 0) / total;
  const lerp = (a: readonly [number, number], b: readonly [number, number], f: number): [number, number] => [
    a[0] + (b[0] - a[0]) * f,
    a[1] + (b[1] - a[1]) * f,
  ];
  return parts.map((part, i) => {
    const from = i === 0 ? 0 : share(at(part.index));
    const to = i === parts.length - 1 ? 1 : share(at(part.index + part.text.length));
    return {
      text: part.text,
      confidence: line.confidence,
      box: [lerp(p0!, p1!, from), lerp(p0!, p1!, to), lerp(p3!, p2!, to), lerp(p3!, p2!, from)],
    };
  });
}

/** The pieces with the page's skew (the median slope of their top edges) taken out, a piece per cell. */
function place(lines: readonly OcrLine[]): PlacedPiece[] {
  const usable = lines.filter((l) => l.box.length >= 4 && l.text.trim());
  const slopes = usable
    .map((l) => {
      const [[x0, y0], [x1, y1]] = [l.box[0]!, l.box[1]!];
      return x1 - x0 > 20 ? (y1 - y0) / (x1 - x0) : undefined;
    })
    .filter((s): s is number => s !== undefined)
    .sort((a, b) => a - b);
  const slope = slopes.length > 0 ? slopes[Math.floor(slopes.length / 2)]! : 0;
  const angle = Math.atan(slope);
  const [cos, sin] = [Math.cos(-angle), Math.sin(-angle)];
  return usable
    .flatMap((line, source) => cells(line).map((l, cell, all) => ({ l, source, cell, count: all.length })))
    .map(({ l, source, cell, count }) => {
      const xs = l.box.map((p) => p[0] * cos - p[1] * sin);
      const cx = l.box.reduce((s, p) => s + p[0], 0) / l.box.length;
      const cy = l.box.reduce((s, p) => s + p[1], 0) / l.box.length;
      const height = Math.max(
        1,
        Math.hypot(l.box[3]![0] - l.box[0]![0], l.box[3]![1] - l.box[0]![1]),
        Math.hypot(l.box[2]![0] - l.box[1]![0], l.box[2]![1] - l.box[1]![1]),
      );
      return {
        source,
        cell,
        cells: count,
        text: l.text.trim(),
        confidence: l.confidence,
        box: l.box,
        x: cx * cos - cy * sin,
        y: cx * sin + cy * cos,
        left: Math.min(...xs),
        right: Math.max(...xs),
        height,
      };
    });
}

/** Top to bottom, then left to right, then by text: the same order whatever order the OCR answered in. */
const byPosition = (a: PlacedPiece, b: PlacedPiece) => a.y - b.y || a.x - b.x || (a.text < b.text ? -1 : 1);

/** Pieces whose centres lie within `tolerance` text heights of a line's running mean share the line. */
function lines(pieces: readonly PlacedPiece[], tolerance: number): PlacedPiece[][] {
  const out: PlacedPiece[][] = [];
  for (const piece of [...pieces].sort(byPosition)) {
    const line = out[out.length - 1];
    if (line) {
      const y = line.reduce((s, p) => s + p.y, 0) / line.length;
      const h = Math.min(piece.height, ...line.map((p) => p.height));
      if (Math.abs(piece.y - y) < h * tolerance) {
        line.push(piece);
        continue;
      }
    }
    out.push([piece]);
  }
  return out;
}

/** A column a table's header names, and where its header word is (levelled x). */
export interface HeaderColumn {
  cls: HeaderClass;
  from: number;
  to: number;
}

interface Band {
  /** Where the band starts, from the top of the levelled page. */
  top: number;
  /** The x at which each table after the first starts. */
  splits: number[];
  /** Each table's header columns. */
  headers: HeaderColumn[][];
}

/**
 * The bands of the page a header line starts, each with where its tables side by side start: a header naming a
 * column again (项目 结果 单位 参考值 项目 结果 …) starts another table there, with the sequence-number and code
 * columns just before that name.
 */
function bands(pieces: readonly PlacedPiece[]): Band[] {
  const headers = pieces.flatMap((p) => {
    const words = headerWords(p.text);
    return words ? [{ piece: p, words }] : [];
  });
  const out: Band[] = [];
  // A header's words may sit a little apart in y when the tables are not level with each other: a text height.
  for (const line of lines(
    headers.map((h) => h.piece),
    1,
  )) {
    const entries = line
      .flatMap((p) =>
        headers
          .find((h) => h.piece === p)!
          .words.map((w) => ({
            cls: w.cls,
            from: p.left + (p.right - p.left) * w.from,
            to: p.left + (p.right - p.left) * w.to,
          })),
      )
      .sort((a, b) => a.from - b.from);
    if (entries.length < 3) continue;
    const groups: (typeof entries)[] = [[]];
    let seen = new Set<HeaderClass>();
    for (const entry of entries) {
      let group = groups[groups.length - 1]!;
      if (seen.has(entry.cls)) {
        // The columns before the name (序号, 代码) belong to the table the name starts.
        let lead = 0;
        while (lead < group.length - 2 && ['seq', 'code'].includes(group[group.length - 1 - lead]!.cls)) lead++;
        group = group.splice(group.length - lead, lead);
        groups.push(group);
        seen = new Set(group.map((m) => m.cls));
      }
      group.push(entry);
      seen.add(entry.cls);
    }
    const tables = groups.filter((g) => g.length >= 2);
    const splits = tables.slice(1).map((g, i) => {
      const before = tables[i]!;
      return (Math.max(...before.map((e) => e.to)) + Math.min(...g.map((e) => e.from))) / 2;
    });
    out.push({ top: Math.min(...line.map((p) => p.y - p.height / 2)), splits, headers: tables });
  }
  return out;
}

/** Where in a row's cells an analyte may start (its name, or the sequence number and code before it). */
export type AnalyteStarts = (texts: readonly string[]) => readonly number[];

/**
 * An OCR piece read over tables side by side (a whole line of the page as one piece): its cells go to the tables
 * by where an analyte starts nearest each table's edge, not by the width their characters were guessed to print.
 */
function cutAtAnalytes(
  cells: readonly PlacedPiece[],
  placed: Map<PlacedPiece, { band: number; column: number }>,
  found: readonly Band[],
  analyteStarts: AnalyteStarts,
) {
  if (cells.length < 2) return;
  const ordered = [...cells].sort((a, b) => a.cell - b.cell);
  const { band } = placed.get(ordered[0]!)!;
  const columns = ordered.map((c) => placed.get(c)!.column);
  const [first, last] = [columns[0]!, columns[columns.length - 1]!];
  if (band < 0 || first === last) return;
  const starts = analyteStarts(ordered.map((c) => c.text)).filter((i) => i > 0);
  const cuts: number[] = [];
  for (let column = first; column < last; column++) {
    const edge = found[band]!.splits[column]!;
    const after = starts.filter((i) => i > (cuts[cuts.length - 1] ?? 0));
    if (after.length === 0) return;
    cuts.push(after.reduce((a, b) => (Math.abs(ordered[b]!.left - edge) < Math.abs(ordered[a]!.left - edge) ? b : a)));
  }
  ordered.forEach((c, i) => placed.set(c, { band, column: first + cuts.filter((cut) => i >= cut).length }));
}

/**
 * Puts the OCR's pieces of text back into the rows of the page: the page's skew is the median slope of the
 * pieces' top edges; a header line naming its columns twice splits the page below it into tables side by side;
 * within a table, pieces whose centres lie within half a text height of each other once the skew is taken out
 * share a row, read left to right. Rows come table by table (a left table before the right one), top to bottom.
 * `analyteStarts` (the parser's) places the cells of a piece read over two tables.
 */
export function groupRows(lines_: readonly OcrLine[], analyteStarts?: AnalyteStarts): PageRow[] {
  const pieces = place(lines_);
  if (pieces.length === 0) return [];
  const found = bands(pieces);
  const bandOf = (piece: PlacedPiece) => {
    let band = -1;
    found.forEach((b, i) => {
      if (piece.y >= b.top) band = i;
    });
    return band;
  };
  const placed = new Map<PlacedPiece, { band: number; column: number }>();
  for (const piece of pieces) {
    const band = bandOf(piece);
    const splits = band >= 0 ? found[band]!.splits : [];
    placed.set(piece, { band, column: splits.filter((x) => piece.x >= x).length });
  }
  if (analyteStarts) {
    const bySource = new Map<number, PlacedPiece[]>();
    for (const p of pieces) bySource.set(p.source, [...(bySource.get(p.source) ?? []), p]);
    for (const cellsOf of bySource.values()) cutAtAnalytes(cellsOf, placed, found, analyteStarts);
  }
  const tables = new Map<string, { band: number; column: number; pieces: PlacedPiece[] }>();
  for (const piece of pieces) {
    const { band, column } = placed.get(piece)!;
    const key = `${band}/${column}`;
    if (!tables.has(key)) tables.set(key, { band, column, pieces: [] });
    tables.get(key)!.pieces.push(piece);
  }
  const rows: PageRow[] = [];
  for (const table of tables.values()) {
    for (const line of lines(table.pieces, 0.5)) {
      line.sort((a, b) => a.x - b.x || (a.text < b.text ? -1 : 1));
      rows.push({
        text: line.map((p) => p.text).join(' '),
        confidence: meanConfidence(line),
        box: boundsOf(line.flatMap((p) => p.box)),
        pieces: line,
        band: table.band,
        column: table.column,
        y: line.reduce((s, p) => s + p.y, 0) / line.length,
        ...(table.band >= 0 && found[table.band]!.headers[table.column]
          ? { header: found[table.band]!.headers[table.column] }
          : {}),
      });
    }
  }
  return rows.sort((a, b) => a.band - b.band || a.column - b.column || a.y - b.y);
}
