import { ANALYTE_TABLE } from './analyte-table.js';

/**
 * One unit an analyte is reported in, with its ranges in that unit. `plausible` is what a living patient can have
 * (a value outside is a misreading); `reference` a typical adult reference range, to judge a printed range against
 * (a shifted row prints its neighbour's). Both as [low, high].
 */
export interface AnalyteMeasure {
  /** Spellings of one unit as `normaliseUnit` gives them (s, 秒 and sec; mg/L and μg/mL); '' for a unitless one. */
  units: readonly string[];
  plausible: readonly [number, number];
  reference: readonly [number, number];
  /** A conventional unit (mg/dL …) Chinese reports rarely print: offered unless the form item asks for it. */
  conventional?: true;
  /**
   * Printed with decimals by every hospital (白细胞 6.52, 总胆红素 12.3), where a lost decimal point still gives a
   * plausible value (4.1 read as 41): a whole number above the range is offered. Set only where that is so.
   */
  fractional?: true;
}

/**
 * An analyte of the common Chinese lab reports (血常规, 生化, 血脂, 电解质, 凝血, 尿常规) with its usual code and the
 * names hospitals print for it. Used to give a row without a printed code its code, to correct a name the OCR
 * misread by one character, to match a row to a form item that names the same analyte differently, and to judge
 * whether a row's value, unit and range are this analyte's (plausibility.ts). The data: analyte-table.ts.
 */
export interface KnownAnalyte {
  code: string;
  /** The first is the usual name. */
  names: readonly string[];
  /** The units a quantitative analyte is reported in, the usual first; absent for a qualitative one (尿蛋白 阴性). */
  measures?: readonly AnalyteMeasure[];
}

export const KNOWN_ANALYTES: readonly KnownAnalyte[] = ANALYTE_TABLE;

/** The known analyte of a code (as KNOWN_ANALYTES spells it). */
export function analyteByCode(code: string): KnownAnalyte | undefined {
  return byCode.get(normaliseLabel(code));
}

/** Case, width, spaces and brackets do not distinguish two labels. */
export function normaliseLabel(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s()[\]{}（）【】<>《》:：·•'"“”‘’_]/g, '');
}

const byName = new Map<string, KnownAnalyte>();
const byCode = new Map<string, KnownAnalyte>();
for (const analyte of KNOWN_ANALYTES) {
  byCode.set(normaliseLabel(analyte.code), analyte);
  for (const name of analyte.names) if (!byName.has(normaliseLabel(name))) byName.set(normaliseLabel(name), analyte);
}

/** The known analyte a printed name or code stands for, if any. */
export function knownAnalyte(nameOrCode: string): KnownAnalyte | undefined {
  const key = normaliseLabel(nameOrCode.replace(/^\*+/, ''));
  if (!key) return undefined;
  return byName.get(key) ?? byCode.get(key);
}

function editDistanceAtMostOne(a: readonly string[], b: readonly string[]): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * The usual name of the known analyte a name read by OCR stands for when it is one character off (a name of at
 * least four characters: a shorter one is too easily another analyte), or the name as read.
 */
export function correctedName(name: string): string {
  const key = normaliseLabel(name);
  if (byName.has(key) || [...key].length < 4) return name;
  // By code point, not UTF-16 unit.
  const read = [...key];
  const near = new Map<KnownAnalyte, string>();
  for (const [known, analyte] of byName) {
    const chars = [...known];
    if (chars.length >= 4 && editDistanceAtMostOne(read, chars) && !near.has(analyte)) {
      near.set(analyte, analyte.names.find((n) => normaliseLabel(n) === known) ?? name);
    }
  }
  // A misread one character from two analytes' names (丁酸脱氢酶: HBDH or LDH) names neither: a guess could fill
  // another analyte's item.
  return near.size === 1 ? [...near.values()][0]! : name;
}
