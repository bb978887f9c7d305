/**
 * One row of a lab report's table read into an analyte row: name, code, value, unit, reference range and flag
 * (docs/recognition.md, step 5 "Rows").
 */
import { correctedName, knownAnalyte } from './analytes.js';
import type { LabFlag, LabRow } from './lab-report.js';
import {
  BOUND_RE,
  CJK_RE,
  CODE_RE,
  COUNT_RANGE_RE,
  LOST_POWER_RE,
  NUMBER,
  NUMERIC_RANGE_RE,
  NUMERIC_VALUE_RE,
  flagOf,
  headerWords,
  isCode,
  rangeOf,
  rowTokens,
  valueOf,
} from './lab-text.js';
import { isQualitative } from './qualitative.js';
import { canonicalUnit } from './units.js';

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

/** A Greek letter the OCR read as a Latin one before a dash: y-GT, Y-谷氨酰转移酶, a-羟丁酸脱氢酶. */
function greekLookAlike(token: string): string {
  return token
    .replace(/^[yYrv]-(?=[A-Z\u3400-\u9fff])/, 'γ-')
    .replace(/^a-(?=[\u3400-\u9fff])/, 'α-')
    .replace(/^b-(?=[\u3400-\u9fff])/, 'β-');
}

export const LEADING_CODE_RE = /^([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?)([\u3400-\u9fff(（].*)$/;

/**
 * A code printed before the name, in its own column (`WBC 白细胞计数`) or read against it (`WBC白细胞计数`,
 * `CRPC反应蛋白`); not the Latin start of a name (`C反应蛋白`, `pH值`).
 */
function leadingCode(first: string, second: string | undefined): { code: string; name?: string } | undefined {
  // A code whose Greek letter the OCR lost (-GT for γ-GT): no code; the known analyte's is given.
  if (second !== undefined && /^-[A-Za-z][A-Za-z0-9]*$/.test(first) && CJK_RE.test(second)) return { code: '' };
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
  const trailing = /^(.*[\u3400-\u9fff)%#])([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)?[%#]?)$/.exec(token);
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

  tokens[0] = greekLookAlike(tokens[0]);
  const glued = tokens[0];
  const lead = leadingCode(tokens[0], tokens[1]);
  if (lead?.name) tokens[0] = lead.name;
  else if (lead) tokens.shift();

  // The name runs up to the first token that is a code, a value, a flag, a unit or a range.
  const nameParts: string[] = [tokens.shift()!];
  while (tokens.length > 0 && !endsName(tokens[0]!)) nameParts.push(tokens.shift()!);
  const split = splitNameCode(nameParts.join(''));
  let name = split.name;
  let code = lead?.code ?? split.code;
  // A code column after the name is the code: letters read against the name are the name's (PT国际标准化比值 INR,
  // 红细胞分布宽度CV RDW-CV), and a stray letter before it is none (T 钠 NA).
  if (tokens.length > 0 && isCode(greekLookAlike(tokens[0]!))) {
    code = greekLookAlike(tokens.shift()!);
    name = lead?.name ? glued + nameParts.slice(1).join('') : nameParts.join('');
  }
  if (!CJK_RE.test(name) && !/^\*?[A-Za-z]/.test(name)) return undefined;
  // Patient details (姓名: 张三), dates and sample numbers are not analytes, nor is a header.
  if (/[:：]/.test(name) || /^(姓名|性别|年龄|科室|床号|标本|送检|报告|检验|审核|样本|备注|诊断)/.test(name)) {
    return undefined;
  }
  if (headerWords(name)) return undefined;

  let value = '';
  let flag: LabFlag | undefined;
  let unit = '';
  let range = '';
  let powerLost = false;
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
    // A numeric value has a numeric range: a `+` or `-` after it is a misread flag, not its range.
    const r = value && !range ? rangeOf(token) : undefined;
    if (r !== undefined && !(NUMERIC_VALUE_RE.test(value) && isQualitative(r))) {
      range = r;
      continue;
    }
    const u = canonicalUnit(token);
    if (u !== undefined) {
      unit ||= u;
      continue;
    }
    if (LOST_POWER_RE.test(token)) powerLost = true;
    // A value and range run together (3.5-9.5 read beside the unit): keep the range.
    const runTogether = new RegExp(`^${NUMBER}-${NUMBER}`).exec(token);
    if (!range && value && runTogether) range = runTogether[0];
  }
  if (!value) return undefined;

  const star = name.startsWith('*') ? '*' : '';
  const printed = name.replace(/^\*+/, '');
  // 淋巴细胞% and 淋巴细胞# are the percentage and the count: never "corrected" by one character to 淋巴细胞数.
  const sign = /^(.*[\u3400-\u9fff])\s*([%#])$/.exec(printed);
  let bare = sign ? printed : correctedName(printed);
  // A short name misread by one character (肌干 for 肌酐) when the printed code names a known analyte.
  const byCode = code ? knownAnalyte(code) : undefined;
  if (byCode && !knownAnalyte(bare) && [...bare].length <= 3) {
    const fix = byCode.names.find(
      (n) => n.length === bare.length && [...n].filter((c, i) => c !== [...bare][i]).length <= 1,
    );
    if (fix) bare = fix;
  }
  const analyte =
    knownAnalyte(bare) ?? (sign ? knownAnalyte(sign[1]! + (sign[2] === '%' ? '百分比' : '绝对值')) : undefined);
  const known = analyte?.code;
  // A code the OCR misread by a look-alike character (MON0% for MONO%) is the known analyte's code; a printed one
  // differing only in case (Ca, ApoB) stays as printed.
  if (!code || (known && code.toUpperCase() !== known.toUpperCase() && lookAlike(code) === lookAlike(known))) {
    code = known ?? code;
  }
  // ×10⁹/L with its exponent lost (×10%/L, ×10/L): the power of ten the analyte is counted in.
  if (!unit && powerLost) {
    unit = analyte?.measures?.flatMap((m) => m.units).find((u) => u.startsWith('10^')) ?? '';
  }
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
