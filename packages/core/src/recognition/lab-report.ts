import { correctedName, knownAnalyte } from './analytes.js';
import { boundsOf, groupRows, meanConfidence, type OcrLine, type PlacedPiece, type RowBox } from './lab-rows.js';
import {
  BOUND_RE,
  CJK_RE,
  CODE_RE,
  COUNT_RANGE_RE,
  NUMBER,
  NUMERIC_RANGE_RE,
  flagOf,
  headerWords,
  isCode,
  rangeOf,
  rowTokens,
  valueOf,
} from './lab-text.js';
import { isQualitative } from './qualitative.js';
import { canonicalUnit } from './units.js';

export { groupRows, type OcrLine, type PageRow, type RowBox } from './lab-rows.js';
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

/** Whether the flag follows from the value and the range (both numeric). */
function computable(value: string, range: string): boolean {
  return new RegExp(`^${NUMBER}$`).test(value) && (NUMERIC_RANGE_RE.test(range) || BOUND_RE.test(range));
}

/** The flag a numeric value earns against a numeric range, when no flag was printed or read. */
export function flagAgainstRange(value: string, range: string): LabFlag {
  const v = Number(value.replace(/^[<>≤≥]/, ''));
  if (!Number.isFinite(v) || /^[<>≤≥]/.test(value)) return '';
  const between = NUMERIC_RANGE_RE.exec(range);
  if (between) {
    const [low, high] = [Number(between[1]), Number(between[2])];
    return v < low ? '↓' : v > high ? '↑' : '';
  }
  const bound = BOUND_RE.exec(range);
  if (bound) {
    const limit = Number(bound[2]);
    if ((bound[1] === '<' && v >= limit) || (bound[1] === '≤' && v > limit)) return '↑';
    if ((bound[1] === '>' && v <= limit) || (bound[1] === '≥' && v < limit)) return '↓';
  }
  return '';
}

/** A code with the characters OCR confuses made the same (0/O, 1/I/l, 5/S, 8/B). */
const lookAlike = (code: string) =>
  code.toUpperCase().replace(/0/g, 'O').replace(/[1L]/g, 'I').replace(/5/g, 'S').replace(/8/g, 'B');

const LEADING_CODE_RE = /^([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?)([\u3400-\u9fff(（].*)$/;

/**
 * A code printed before the name, in its own column (`WBC 白细胞计数`) or read against it (`WBC白细胞计数`,
 * `CRPC反应蛋白`); not the Latin start of a name (`C反应蛋白`, `pH值`).
 */
function leadingCode(first: string, second: string | undefined): { code: string; name?: string } | undefined {
  if (
    second !== undefined &&
    isCode(first) &&
    CJK_RE.test(second) &&
    !isQualitative(second) &&
    !flagOf(second) &&
    !knownAnalyte(first + second)
  ) {
    return { code: first };
  }
  const glued = LEADING_CODE_RE.exec(first);
  if (!glued || knownAnalyte(first) || knownAnalyte(correctedName(first))) return undefined;
  const [, letters, rest] = glued;
  for (let cut = letters!.length; cut >= 1; cut--) {
    const name = letters!.slice(cut) + rest!;
    if (CODE_RE.test(letters!.slice(0, cut)) && knownAnalyte(name)) return { code: letters!.slice(0, cut), name };
  }
  // An unknown analyte: the letters are its code when they are more than a letter and the name more than a word.
  return letters!.length >= 2 && [...rest!].length >= 3 ? { code: letters!, name: rest! } : undefined;
}

/** Splits a name token with its code written after it: 白细胞计数(WBC), 白细胞计数WBC. */
function splitNameCode(token: string): { name: string; code: string } {
  const bracketed = /^(.*?)\(([A-Za-z][A-Za-z0-9%#/-]*)\)$/.exec(token);
  // A single small letter in brackets is part of the name: 脂蛋白(a).
  if (bracketed && CJK_RE.test(bracketed[1]!) && !/^[a-z]$/.test(bracketed[2]!)) {
    return { name: bracketed[1]!, code: bracketed[2]! };
  }
  const trailing = /^(.*[\u3400-\u9fff)])([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?)$/.exec(token);
  if (trailing && !knownAnalyte(token)) return { name: trailing[1]!, code: trailing[2]! };
  return { name: token, code: '' };
}

/** Whether a cell ends the name: a value, flag, unit, range or code. */
const endsName = (token: string) =>
  valueOf(token) !== undefined ||
  flagOf(token) !== undefined ||
  canonicalUnit(token) !== undefined ||
  rangeOf(token) !== undefined ||
  (!CJK_RE.test(token) && !/^[()（）%#]/.test(token));

/** A count range is the value (1-2 /HP) when a unit per field follows it or another range does. */
function countValue(tokens: readonly string[], at: number): boolean {
  if (!COUNT_RANGE_RE.test(tokens[at]!)) return false;
  const next = tokens[at + 1] !== undefined ? canonicalUnit(tokens[at + 1]!) : undefined;
  if (next && /^\/(HP|LP|μL)$/.test(next)) return true;
  return tokens.slice(at + 1).some((t) => NUMERIC_RANGE_RE.test(t) || BOUND_RE.test(t) || isQualitative(t));
}

/**
 * Reads one row of a lab report's table (the texts of its cells joined by spaces) into an analyte row, or
 * undefined when it is not one (a title, a header, a line of patient details).
 */
export function parseLabRow(text: string, confidence = 1): LabRow | undefined {
  const tokens = rowTokens(text);
  // A sequence number before the name: 1, 1., 1、, (1), 101; or read against the name (1.白细胞计数).
  if (tokens.length > 2 && /^\(?\d{1,3}[.、)]?$/.test(tokens[0]!)) tokens.shift();
  if (tokens[0]) tokens[0] = tokens[0].replace(/^\(?\d{1,3}[.、)]?(?=[\u3400-\u9fff*])/, '');
  if (tokens.length < 2 || !tokens[0]) return undefined;

  const lead = leadingCode(tokens[0], tokens[1]);
  if (lead?.name) tokens[0] = lead.name;
  else if (lead) tokens.shift();

  // The name runs up to the first token that is a code, a value, a flag, a unit or a range.
  const nameParts: string[] = [tokens.shift()!];
  while (tokens.length > 0 && !endsName(tokens[0]!)) nameParts.push(tokens.shift()!);
  const split = splitNameCode(nameParts.join(''));
  const name = split.name;
  let code = lead?.code ?? split.code;
  if (!CJK_RE.test(name) && !/^\*?[A-Za-z]/.test(name)) return undefined;
  // Patient details (姓名: 张三), dates and sample numbers are not analytes, nor is a header.
  if (/[:：]/.test(name) || /^(姓名|性别|年龄|科室|床号|标本|送检|报告|检验|审核|样本|备注|诊断)/.test(name)) {
    return undefined;
  }
  if (headerWords(name)) return undefined;

  if (!code && tokens.length > 0 && isCode(tokens[0]!)) code = tokens.shift()!;

  let value = '';
  let flag: LabFlag | undefined;
  let unit = '';
  let range = '';
  for (const [i, token] of tokens.entries()) {
    if (!value) {
      const v = countValue(tokens, i) ? token : valueOf(token);
      if (v !== undefined) {
        value = v;
        continue;
      }
    }
    const f = flagOf(token);
    // A flag before the value only as an arrow (↓2.1): a lone H or L there is more likely a code or a unit's L.
    if (f && flag === undefined && (value || /^[↑↓]/.test(token))) {
      flag = f;
      continue;
    }
    const r = value && !range ? rangeOf(token) : undefined;
    if (r !== undefined) {
      range = r;
      continue;
    }
    const u = canonicalUnit(token);
    if (u !== undefined) {
      unit ||= u;
      continue;
    }
    // A value and range run together (3.5-9.5 read beside the unit): keep the range.
    const runTogether = new RegExp(`^${NUMBER}-${NUMBER}`).exec(token);
    if (!range && value && runTogether) range = runTogether[0];
  }
  if (!value) return undefined;

  const star = name.startsWith('*') ? '*' : '';
  let bare = correctedName(name.replace(/^\*+/, ''));
  // A short name misread by one character (肌干 for 肌酐) when the printed code names a known analyte.
  const byCode = code ? knownAnalyte(code) : undefined;
  if (byCode && !knownAnalyte(bare) && [...bare].length <= 3) {
    const fix = byCode.names.find(
      (n) => n.length === bare.length && [...n].filter((c, i) => c !== [...bare][i]).length <= 1,
    );
    if (fix) bare = fix;
  }
  const known = knownAnalyte(bare)?.code;
  // A code the OCR misread by a look-alike character (MON0% for MONO%) is the known analyte's code.
  if (!code || (known && code !== known && lookAlike(code) === lookAlike(known))) code = known ?? code;
  return {
    name: star + bare,
    code,
    value,
    unit,
    referenceRange: range,
    // A flag computed from a numeric value and range beats one read: an `L` of a unit split by the OCR reads as 低.
    flag: computable(value, range) ? flagAgainstRange(value, range) : (flag ?? ''),
    confidence,
  };
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
  for (const pageRow of groupRows(lines)) {
    for (const pieces of analytesOf(pageRow.pieces)) {
      const parsed = parseLabRow(pieces.map((p) => p.text).join(' '), meanConfidence(pieces));
      if (!parsed) continue;
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
