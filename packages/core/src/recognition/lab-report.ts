import { correctedName, knownAnalyte } from './analytes.js';

/** One piece of text the OCR found: its text, its quadrilateral (clockwise from top left) and its confidence 0–1. */
export interface OcrLine {
  text: string;
  box: readonly (readonly [number, number])[];
  confidence: number;
}

export type LabFlag = '↑' | '↓' | '';

/** One analyte row of a lab report. */
export interface LabRow {
  /** As printed, a leading `*` kept (the mapping strips it). */
  name: string;
  /** The printed code, else the known analyte's, else ''. */
  code: string;
  value: string;
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

/** The axis-aligned bounds of the pieces of one row. */
export type RowBox = readonly [number, number, number, number];

const NUMBER = String.raw`[-+]?\d+(?:\.\d+)?`;
const VALUE_RE = new RegExp(`^[<>≤≥]?${NUMBER}$`);
/** Qualitative results of urine and other tests. */
const QUALITATIVE_RE =
  /^(阴性|阳性|弱阳性|极弱阳性|可疑|正常|微量|少量|[+-]|\+-|±|[1-4]\+|\+{1,4}|清|清亮|透明|微浑|浑浊|淡黄色?|黄色?|深黄色?|无色|红色|褐色)$/;
const RANGE_RE = new RegExp(`^(?:${NUMBER}-${NUMBER}|[<>≤≥]${NUMBER}|阴性|阴性\\(-\\)|-|正常)$`);
const FLAG_RE = /^(↑|↓|H|L|高|低|偏高|偏低)$/;
const UNIT_WORDS = new Set([
  '%',
  '‰',
  'fl',
  'fL',
  'pg',
  'g/l',
  'mg',
  's',
  'sec',
  'mmhg',
  '/hp',
  '/lp',
  '/ul',
  '个/ul',
  'iu/ml',
]);
const CODE_RE = /^[A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?$/;
const CJK_RE = /[\u3400-\u9fff]/;

/** Full-width forms, the many dashes and tildes of ranges, the multiplication sign of 10^9/L. */
export function normaliseReportText(text: string): string {
  return (
    text
      .normalize('NFKC')
      .replace(/[－—–―~～〜]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/[×xX*]\s*10\s*[\^]?\s*(\d+)/g, '10^$1')
      // 10^9/L with the caret read as a dash or a quote.
      .replace(/(^|\s)10\s*[-^'`·]\s*(\d{1,2})\s*\/\s*L(?=\s|$)/g, '$110^$2/L')
      // A unit read against its value: 72.1% , 92.3fL.
      .replace(/(^|\s)([<>≤≥]?\d+(?:\.\d+)?)(%|fL|fl|pg|g\/L|U\/L|mmol\/L|μmol\/L)(?=\s|$)/g, '$1$2 $3')
      // A stray full stop or comma after a cell.
      .replace(/(\d)[.,。，](?=\s|$)/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

function isUnit(token: string): boolean {
  if (UNIT_WORDS.has(token.toLowerCase())) return true;
  if (/^10\^?\d+\/?[A-Za-zμµ]*$/.test(token)) return true;
  // g/L, mmol/L, μmol/L, U/L, 10^12/L, 个/μL; a code such as A/G is a code, not a unit.
  return /^[A-Za-zμµ个]{0,5}\/[A-Za-zμµ]{1,3}$/.test(token) && !knownAnalyte(token);
}

function flagOf(token: string): LabFlag | undefined {
  if (!FLAG_RE.test(token)) return undefined;
  return token === '↑' || token === 'H' || token.includes('高') ? '↑' : '↓';
}

/** A value with its flag written against it (6.52↑, 98L). */
function splitValueFlag(token: string): { value: string; flag?: LabFlag } | undefined {
  if (VALUE_RE.test(token) || QUALITATIVE_RE.test(token)) return { value: token };
  const m = /^(.*?)(↑|↓|H|L)$/.exec(token);
  if (m && (VALUE_RE.test(m[1]!) || QUALITATIVE_RE.test(m[1]!))) return { value: m[1]!, flag: flagOf(m[2]!) };
  return undefined;
}

/** Whether the flag follows from the value and the range (both numeric). */
function computable(value: string, range: string): boolean {
  return (
    new RegExp(`^${NUMBER}$`).test(value) &&
    (new RegExp(`^${NUMBER}-${NUMBER}$`).test(range) || new RegExp(`^[<>≤≥]${NUMBER}$`).test(range))
  );
}

/** The flag a numeric value earns against a numeric range, when no flag was printed or read. */
export function flagAgainstRange(value: string, range: string): LabFlag {
  const v = Number(value.replace(/^[<>≤≥]/, ''));
  if (!Number.isFinite(v) || /^[<>≤≥]/.test(value)) return '';
  const between = new RegExp(`^(${NUMBER})-(${NUMBER})$`).exec(range);
  if (between) {
    const [low, high] = [Number(between[1]), Number(between[2])];
    return v < low ? '↓' : v > high ? '↑' : '';
  }
  const bound = new RegExp(`^([<>≤≥])(${NUMBER})$`).exec(range);
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

/** Splits a name token with its code written against it: 白细胞计数(WBC), 白细胞计数WBC. */
function splitNameCode(token: string): { name: string; code: string } {
  const bracketed = /^(.*?)\(([A-Za-z][A-Za-z0-9%#/-]*)\)$/.exec(token);
  if (bracketed && CJK_RE.test(bracketed[1]!)) return { name: bracketed[1]!, code: bracketed[2]! };
  const trailing = /^(.*[\u3400-\u9fff)])([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?)$/.exec(token);
  if (trailing && !knownAnalyte(token)) return { name: trailing[1]!, code: trailing[2]! };
  return { name: token, code: '' };
}

/**
 * Reads one row of a lab report's table (the texts of its cells joined by spaces) into an analyte row, or
 * undefined when it is not one (a title, a header, a line of patient details).
 */
export function parseLabRow(text: string, confidence = 1): LabRow | undefined {
  const tokens = normaliseReportText(text).split(' ').filter(Boolean);
  // A sequence number before the name.
  if (tokens.length > 2 && /^\d{1,2}\.?$/.test(tokens[0]!)) tokens.shift();
  if (tokens.length < 2) return undefined;

  // The name runs up to the first token that is a code, a value or a flag.
  const nameParts: string[] = [tokens.shift()!];
  while (tokens.length > 0) {
    const next = tokens[0]!;
    if (splitValueFlag(next) || flagOf(next) || isUnit(next) || RANGE_RE.test(next)) break;
    if (CODE_RE.test(next) && !CJK_RE.test(next)) break;
    if (!CJK_RE.test(next) && !/^[()（）%#]/.test(next)) break;
    nameParts.push(tokens.shift()!);
  }
  const split = splitNameCode(nameParts.join(''));
  const name = split.name;
  let code = split.code;
  if (!CJK_RE.test(name) && !/^\*?[A-Za-z]/.test(name)) return undefined;
  // Patient details (姓名: 张三), dates and sample numbers are not analytes.
  if (/[:：]/.test(name) || /^(姓名|性别|年龄|科室|床号|标本|送检|报告|检验|审核|样本|备注|诊断)/.test(name)) {
    return undefined;
  }

  if (!code && tokens.length > 0 && CODE_RE.test(tokens[0]!) && !isUnit(tokens[0]!)) {
    // A bare code column; a qualitative value such as `H` would be a flag, which CODE_RE also takes.
    if (!(tokens.length === 1 && flagOf(tokens[0]!))) code = tokens.shift()!;
  }

  let value = '';
  let flag: LabFlag | undefined;
  let unit = '';
  let range = '';
  for (const token of tokens) {
    if (!value) {
      const v = splitValueFlag(token);
      if (v) {
        value = v.value;
        flag = v.flag ?? flag;
        continue;
      }
    }
    const f = flagOf(token);
    if (f && value && flag === undefined) {
      flag = f;
      continue;
    }
    if (!range && value && RANGE_RE.test(token)) {
      range = token;
      continue;
    }
    if (!unit && isUnit(token)) {
      unit = token;
      continue;
    }
    // A value and range run together (3.5-9.5 read beside the unit) or a unit beside its range: keep the first.
    if (!range && value && new RegExp(`^${NUMBER}-${NUMBER}`).test(token)) range = token;
  }
  if (!value) return undefined;

  const printedName = name;
  const star = printedName.startsWith('*') ? '*' : '';
  let bare = correctedName(printedName.replace(/^\*+/, ''));
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
    unit: unit.replace(/^[μµ]u/, 'μ').replace(/^u(mol|g)\//, 'μ$1/'),
    referenceRange: range,
    // A flag computed from a numeric value and range beats one read: an `L` of a unit split by the OCR reads as 低.
    flag: computable(value, range) ? flagAgainstRange(value, range) : (flag ?? ''),
    confidence,
  };
}

interface Placed {
  text: string;
  confidence: number;
  box: readonly (readonly [number, number])[];
  x: number;
  y: number;
  height: number;
}

/**
 * Puts the OCR's pieces of text back into the rows of the page: the page's skew is the median slope of the
 * pieces' top edges, and pieces whose centres lie within half a text height of each other once the skew is
 * taken out share a row, read left to right.
 */
export function groupRows(lines: readonly OcrLine[]): { text: string; confidence: number; box: RowBox }[] {
  const usable = lines.filter((l) => l.box.length >= 4 && l.text.trim());
  if (usable.length === 0) return [];
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

  const placed: Placed[] = usable.map((l) => {
    const cx = l.box.reduce((s, p) => s + p[0], 0) / l.box.length;
    const cy = l.box.reduce((s, p) => s + p[1], 0) / l.box.length;
    const height = Math.max(
      1,
      Math.hypot(l.box[3]![0] - l.box[0]![0], l.box[3]![1] - l.box[0]![1]),
      Math.hypot(l.box[2]![0] - l.box[1]![0], l.box[2]![1] - l.box[1]![1]),
    );
    return {
      text: l.text.trim(),
      confidence: l.confidence,
      box: l.box,
      x: cx * cos - cy * sin,
      y: cx * sin + cy * cos,
      height,
    };
  });
  placed.sort((a, b) => a.y - b.y);

  const rows: Placed[][] = [];
  for (const piece of placed) {
    const row = rows[rows.length - 1];
    if (row) {
      const y = row.reduce((s, p) => s + p.y, 0) / row.length;
      const h = Math.min(piece.height, ...row.map((p) => p.height));
      if (Math.abs(piece.y - y) < h * 0.5) {
        row.push(piece);
        continue;
      }
    }
    rows.push([piece]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const weight = row.reduce((s, p) => s + p.text.length, 0);
    return {
      text: row.map((p) => p.text).join(' '),
      confidence: row.reduce((s, p) => s + p.confidence * p.text.length, 0) / Math.max(1, weight),
      box: boundsOf(row.flatMap((p) => p.box)),
    };
  });
}

function boundsOf(points: readonly (readonly [number, number])[]): RowBox {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The analyte rows of a lab report from the OCR's pieces of text, each with where it was read. */
export function parseLabReport(lines: readonly OcrLine[]): LabRow[] {
  const rows: LabRow[] = [];
  for (const row of groupRows(lines)) {
    const parsed = parseLabRow(row.text, row.confidence);
    if (parsed) rows.push({ ...parsed, box: row.box });
  }
  return rows;
}
