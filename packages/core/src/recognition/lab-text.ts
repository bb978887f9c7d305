/**
 * The cells of a lab report's row, as text: normalising what printers and the OCR vary (widths, dashes, glued
 * cells) and telling what a cell is (a value, a flag, a unit, a reference range, a code, a column header).
 */
import { isQualitative, qualitativeText } from './qualitative.js';
import { canonicalUnit, levelSuperscripts } from './units.js';

export const NUMBER = String.raw`[-+]?\d+(?:\.\d+)?`;
const VALUE_RE = new RegExp(`^[<>≤≥]?${NUMBER}$`);
export const NUMERIC_VALUE_RE = VALUE_RE;
/** ×10⁹/L with its exponent lost or misread (×10%/L, ×10/L, 10°/L). */
export const LOST_POWER_RE = /^[×xX*]?10[%°'"^*]?\/[lL1I]$/;
export const NUMERIC_RANGE_RE = new RegExp(`^(${NUMBER})-(${NUMBER})$`);
export const BOUND_RE = new RegExp(`^([<>≤≥])(${NUMBER})$`);
/** A count given as a range (1-2 /HP): a value of urine microscopy. */
export const COUNT_RANGE_RE = /^\d+-\d+$/;
/** WBC, NEUT%, RDW-CV, A/G, LP(a), γGT. */
export const CODE_RE = /^[A-Za-zα-ω][A-Za-z0-9α-ω]*(?:[-/][A-Za-z0-9]+)?(?:\([A-Za-z0-9]{1,3}\))?[%#]?$/;
export const CJK_RE = /[\u3400-\u9fff]/;
const FLAG_RE = /^(?:↑{1,2}|↓{1,2}|HH?|LL?|高|低|偏高|偏低|▲|▼|\((?:↑|↓|H|L)\)|\[(?:H|L)\])$/;
const GLUED_FLAG = String.raw`↑{1,2}|↓{1,2}|\((?:↑|↓|H|L)\)|\[(?:H|L)\]|HH?|LL?|高|低`;
/** A value with a flag and a unit read against it: 6.52↑, 151.5H, ↓2.1, 72.1%, 151.5H10^9/L. */
const GLUED_VALUE_RE = new RegExp(`^(↑|↓)?([<>≤≥]?${NUMBER})(${GLUED_FLAG})?(.*)$`);
const GLUED_RANGE_RE = new RegExp(`^((?:${NUMBER}-${NUMBER})|(?:[<>≤≥]${NUMBER}))(.+)$`);

/** Full-width forms, the many dashes and tildes of ranges, ≦ and <=, the multiplication sign of 10^9/L. */
export function normaliseReportText(text: string): string {
  return (
    levelSuperscripts(text)
      .normalize('NFKC')
      .replace(/≦|<=/g, '≤')
      .replace(/≧|>=/g, '≥')
      .replace(/[－—–―‐‑−~～〜]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/[×xX*]\s*10\s*[\^]?\s*(\d+)/g, '10^$1')
      // 10^9/L with the caret read as a dash or a quote, and its pieces spaced.
      .replace(/(^|\s)10\s*[-^'`·]\s*(\d{1,2})\s*\/\s*L(?=\s|$)/g, '$110^$2/L')
      // A stray full stop or comma after a cell.
      .replace(/(\d)[.,。，](?=\s|$)/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A flag printed or read: ↑ for high, ↓ for low. */
export function flagOf(token: string): '↑' | '↓' | undefined {
  if (!FLAG_RE.test(token)) return undefined;
  return /↑|H|高|▲/.test(token) ? '↑' : '↓';
}

/** A value as answered: a number as printed, a qualitative result in its one printing. */
export function valueOf(token: string): string | undefined {
  if (VALUE_RE.test(token)) return token;
  return isQualitative(token) ? qualitativeText(token) : undefined;
}

/** A reference range as answered: `3.5-9.5`, `<5`, `≤40`, a qualitative one as printed; brackets taken off. */
export function rangeOf(token: string): string | undefined {
  const bare = /^[([](.*)[)\]]$/.exec(token)?.[1] ?? token;
  if (NUMERIC_RANGE_RE.test(bare) || BOUND_RE.test(bare)) return bare;
  return isQualitative(token) ? qualitativeText(token) : undefined;
}

/** A code column's cell: WBC, NEUT%, A/G (not a unit, a qualitative result or a flag). */
export function isCode(token: string): boolean {
  return CODE_RE.test(token) && !canonicalUnit(token) && !isQualitative(token) && !flagOf(token);
}

/** A cell holding several read against each other, split: 6.52↑ → 6.52 ↑; 5.1mmol/L → 5.1 mmol/L. */
function splitCell(token: string): string[] {
  if (canonicalUnit(token) !== undefined) return [token];
  const value = GLUED_VALUE_RE.exec(token);
  if (value) {
    const [, before, number, after, rest] = value;
    if ((before || after || rest) && (!rest || canonicalUnit(rest) !== undefined)) {
      return [number!, ...(before ? [before] : []), ...(after ? [after] : []), ...(rest ? [rest] : [])];
    }
  }
  // A flag read against the unit after it (↑IU/L, ↓×10%/L); ← and → are arrows whose way the OCR lost.
  const arrowUnit = /^(↑|↓|←|→)(.+)$/.exec(token);
  if (arrowUnit && (canonicalUnit(arrowUnit[2]!) !== undefined || LOST_POWER_RE.test(arrowUnit[2]!))) {
    return [arrowUnit[1]!, arrowUnit[2]!];
  }
  const range = GLUED_RANGE_RE.exec(token);
  if (range && canonicalUnit(range[2]!) !== undefined) return [range[1]!, range[2]!];
  // A range whose dash the OCR lost: 0.561.70 (both bounds with as many decimals).
  for (const d of [1, 2, 3]) {
    const lost = new RegExp(`^(\\d+\\.\\d{${d}})(\\d+\\.\\d{${d}})$`).exec(token);
    if (lost && Number(lost[1]) <= Number(lost[2])) return [`${lost[1]}-${lost[2]}`];
  }
  const qualitative = /^(.+?)(↑|↓)$/.exec(token);
  if (qualitative && isQualitative(qualitative[1]!)) return [qualitative[1]!, qualitative[2]!];
  return [token];
}

const NUMBER_RE = new RegExp(`^${NUMBER}$`);

/**
 * A row's text as its cells: normalised, glued cells split, and what the OCR split put back together (a range
 * spaced around its dash, a comparator apart from its number, a unit apart from its /L, a word apart from its (-)).
 */
export function rowTokens(text: string): string[] {
  const raw = normaliseReportText(text).split(' ').filter(Boolean).flatMap(splitCell);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!;
    const prev = out[out.length - 1];
    const next = raw[i + 1];
    if (prev !== undefined) {
      if (t === '-' && NUMBER_RE.test(prev) && next !== undefined && NUMBER_RE.test(next)) {
        out[out.length - 1] = `${prev}-${next}`;
        i++;
        continue;
      }
      const joined = prev + t;
      if (/^[<>≤≥]$/.test(prev) && NUMBER_RE.test(t)) {
        out[out.length - 1] = joined;
        continue;
      }
      if (/-$/.test(prev) && NUMBER_RE.test(prev.slice(0, -1)) && NUMBER_RE.test(t)) {
        out[out.length - 1] = joined.replace(/-{2,}/, '-');
        continue;
      }
      // μ g/mL; Lp (a).
      if (/^[μµu]$/.test(prev) && t.includes('/') && canonicalUnit(joined) !== undefined) {
        out[out.length - 1] = joined;
        continue;
      }
      if (/^\([A-Za-z0-9]{1,3}\)$/.test(t) && CODE_RE.test(prev) && CODE_RE.test(joined)) {
        out[out.length - 1] = joined;
        continue;
      }
      if ((t.startsWith('/') || prev.endsWith('/')) && canonicalUnit(joined) !== undefined) {
        out[out.length - 1] = joined;
        continue;
      }
      if (/^\(.*\)$/.test(t) && isQualitative(prev) && !prev.endsWith(')') && isQualitative(joined)) {
        out[out.length - 1] = joined;
        continue;
      }
    }
    out.push(t);
  }
  return out;
}

/** The columns a report's header names. */
export type HeaderClass = 'seq' | 'code' | 'name' | 'value' | 'flag' | 'unit' | 'range' | 'method';

const HEADER_WORDS: readonly (readonly [string, HeaderClass])[] = [
  ['序号', 'seq'],
  ['no.', 'seq'],
  ['no', 'seq'],
  ['英文名称', 'code'],
  ['英文缩写', 'code'],
  ['项目代码', 'code'],
  ['代码', 'code'],
  ['代号', 'code'],
  ['缩写', 'code'],
  ['英文', 'code'],
  ['检验项目', 'name'],
  ['检查项目', 'name'],
  ['检测项目', 'name'],
  ['化验项目', 'name'],
  ['项目名称', 'name'],
  ['中文名称', 'name'],
  ['项目', 'name'],
  ['名称', 'name'],
  ['检验结果', 'value'],
  ['检测结果', 'value'],
  ['结果值', 'value'],
  ['检验值', 'value'],
  ['测定值', 'value'],
  ['结果', 'value'],
  ['异常提示', 'flag'],
  ['提示', 'flag'],
  ['标志', 'flag'],
  ['状态', 'flag'],
  ['单位', 'unit'],
  ['生物参考区间', 'range'],
  ['参考值范围', 'range'],
  ['参考区间', 'range'],
  ['参考范围', 'range'],
  ['参考值', 'range'],
  ['正常值', 'range'],
  ['检测方法', 'method'],
  ['检验方法', 'method'],
  ['方法', 'method'],
  ['备注', 'method'],
];

/**
 * The header words a piece of text consists of, each with where it starts and ends in the text (0–1), or
 * undefined when the text is not only header words (项目名称结果 is two; 白细胞 none).
 */
export function headerWords(text: string): { cls: HeaderClass; from: number; to: number }[] | undefined {
  const t = text.normalize('NFKC').toLowerCase();
  const found: { cls: HeaderClass; from: number; to: number }[] = [];
  let at = 0;
  while (at < t.length) {
    if (/\s/.test(t[at]!)) {
      at++;
      continue;
    }
    const hit = HEADER_WORDS.find(([word]) => t.startsWith(word, at));
    if (!hit) return undefined;
    found.push({ cls: hit[1], from: at / t.length, to: (at + hit[0].length) / t.length });
    at += hit[0].length;
  }
  return found.length > 0 ? found : undefined;
}
