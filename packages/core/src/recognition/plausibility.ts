import type { CrfNode } from '../crf/crf-definition.schema.js';
import { itemRule } from '../crf/field-rules.js';
import { overrideInUnit, type RangeOverride } from '../crf/lab-ranges.js';
import { toNumber, unitsOf } from '../crf/options.js';
import { normalizeUnit, unitFactor } from '../crf/units.js';
import { analyteByCode, KNOWN_ANALYTES, knownAnalyte, type AnalyteMeasure, type KnownAnalyte } from './analytes.js';
import { qualitativeKey } from './qualitative.js';
import { normaliseUnit } from './units.js';

/**
 * Whether a recognised row may fill its form item or is only offered (docs/recognition.md, "Filled or offered").
 * A wrong value is worse than none: a row fills only when its name, value, unit, reference range and flag agree
 * with each other, with the analyte the name stands for (analyte-table.ts) and with the form item. Anything
 * doubtful is offered: the nurse sees it unchecked, with its reasons, beside the row's crop of the report.
 */

/** The reasons a row is offered rather than filled, as the nurse reads them. One place: tests and docs quote these. */
export const OFFER_REASONS = {
  implausible: '数值超出该项目的合理范围',
  lostPoint: '数值可能缺少小数点',
  unit: '单位与项目不符',
  uncommonUnit: '单位不是该项目的常用单位',
  formUnit: '单位与表单不符',
  flag: '提示标志与数值、参考范围不一致',
  range: '参考范围与该项目不符，可能错行',
  formLimits: '超出表单允许范围',
  lowConfidence: '识别置信度低',
  needNumber: '该项目应为数值结果',
  needQualitative: '该项目应为定性结果',
  inexact: '结果不是确切数值',
  unknown: '非已知项目，无法核对',
} as const;

export type OfferReason = (typeof OFFER_REASONS)[keyof typeof OFFER_REASONS];

export interface RecognisedVerdict {
  verdict: 'fill' | 'offer';
  /** Empty for 'fill'; for 'offer' each doubt once, in the order of OFFER_REASONS. */
  reasons: OfferReason[];
}

/** What the row is judged against besides itself: the form item it would fill. */
export interface ItemLimits {
  /** The item's validate.min / validate.max (numeric items). */
  min?: number | null;
  max?: number | null;
  /** The item's units; a value is entered in the first. */
  units?: readonly string[];
  /** Codes of the known analytes the item names (its title, name, aliases, a code in brackets). */
  analytes?: readonly string[];
  /** The item's reference ranges (refValueMale…, refValueFemale…) in its first unit: judges a row of an unknown analyte. */
  referenceRanges?: readonly (readonly [number | null, number | null])[];
  /** A numeric item: a value such as `<0.5` goes in as 0.5. */
  numeric?: boolean;
  /**
   * The patient's site reference range (参考范围, issue 37), in `unit` (the item's first unit; a null bound is open):
   * a known analyte's printed range, flag and lost decimal point are judged against it in place of the table's typical
   * range, as the form judges the row's ↑/↓. When it does not convert to the row's unit the typical range judges.
   */
  siteRange?: { low: number | null; high: number | null; unit?: string | null; molarMass?: number | null };
}

/** The fields of a recognised row the judgement reads (a RecognisedEntry). */
export interface JudgedRow {
  name: string;
  code: string;
  value: string;
  unit: string;
  referenceRange: string;
  flag: string;
  /** The OCR's confidence in the row, 0–1, when the answer gave one. */
  probability?: number;
}

/**
 * Below this mean OCR confidence a row is offered. Measured on 246 rows of generated reports (docs/recognition.md):
 * rows read right lowest 0.88, 5th percentile 0.95, median 0.99; the values read wrong 0.94–0.98. The confidence
 * does not single out misreadings (the checks do), so the threshold takes only the rows the OCR itself doubts.
 */
export const MIN_FILL_PROBABILITY = 0.9;

/**
 * How far a printed range's bounds may lie from the analyte's typical ones and still be its own: hospitals' ranges
 * differ by sex, age, method and population well within a factor of 3 (ALT 9–50 or 0–64, CRP 0–10 or hs-CRP 0–3),
 * while a neighbour's range on a shifted row is usually another order of magnitude or does not overlap at all.
 */
const RANGE_FACTOR = 3;

const NUMBER_RE = /^([<>≤≥]?)\s*([-+]?\d+(?:\.\d+)?)$/;

interface NumericValue {
  n: number;
  /** `<`, `>`, `≤`, `≥` or ''. */
  comparator: string;
  /** Printed without a decimal point. */
  whole: boolean;
}

function numericValue(value: string): NumericValue | undefined {
  const m = NUMBER_RE.exec(value.normalize('NFKC').trim());
  return m ? { n: Number(m[2]), comparator: m[1]!, whole: !m[2]!.includes('.') } : undefined;
}

/** `035`, `-07`: a number no report prints, but 0.35 with its point lost does. */
const LEADING_ZERO_RE = /^[<>≤≥]?\s*[-+]?0\d/;

/** A printed range as [low, high] (an open side infinite), or undefined when it is not numeric (阴性). */
export function parsePrintedRange(text: string): readonly [number, number] | undefined {
  const t = text
    .normalize('NFKC')
    .replace(/[－—–―~～〜]+/g, '-')
    .replace(/\s+/g, '');
  const between = /^(\d+(?:\.\d+)?)-+(\d+(?:\.\d+)?)$/.exec(t);
  if (between) {
    const [low, high] = [Number(between[1]), Number(between[2])];
    return low <= high ? [low, high] : undefined;
  }
  const bound = /^([<>≤≥])(\d+(?:\.\d+)?)$/.exec(t);
  if (!bound) return undefined;
  const limit = Number(bound[2]);
  return bound[1] === '<' || bound[1] === '≤' ? [0, limit] : [limit, Number.POSITIVE_INFINITY];
}

/** Whether a printed range can be the analyte's, given its typical range (RANGE_FACTOR). */
export function rangeAgrees(printed: readonly [number, number], typical: readonly [number, number]): boolean {
  const [low, high] = printed;
  const [typicalLow, typicalHigh] = typical;
  if (low > typicalHigh || high < typicalLow) return false;
  const within = (a: number, b: number) => a <= b * RANGE_FACTOR && b <= a * RANGE_FACTOR;
  if (Number.isFinite(high) && Number.isFinite(typicalHigh) && typicalHigh > 0 && !within(high, typicalHigh)) {
    return false;
  }
  if (low > 0 && typicalLow > 0 && !within(low, typicalLow)) return false;
  return true;
}

/** Spellings the table gives one unit (s, 秒 and sec), each to the first of its list. */
const SPELLINGS = new Map<string, string>();
for (const analyte of KNOWN_ANALYTES) {
  for (const measure of analyte.measures ?? []) {
    for (const unit of measure.units) SPELLINGS.set(normalizeUnit(unit), normalizeUnit(measure.units[0]!));
  }
}
const spelling = (unit: string) => SPELLINGS.get(normalizeUnit(unit)) ?? normalizeUnit(unit);

/** One unit in any spelling: `U/L` and `IU/L`, `10^9/L` and `10^3/μL`, `fL` and `fl`, `s` and `秒`. */
function sameUnit(a: string, b: string): boolean {
  const [x, y] = [normaliseUnit(a), normaliseUnit(b)];
  return spelling(x) === spelling(y) || unitFactor(x, y) === 1;
}

/** A printed flag as an arrow ('' for none): H, 高, 偏高 are ↑; L, 低, 偏低 ↓. */
function arrow(flag: string): '↑' | '↓' | '' {
  const f = flag.normalize('NFKC').trim();
  if (/^(↑|H|高|偏高)$/i.test(f)) return '↑';
  if (/^(↓|L|低|偏低)$/i.test(f)) return '↓';
  return '';
}

/** A negative or normal qualitative result (阴性, `-`, 阴性(-), NEG, 正常): no flag belongs on it. */
const negativeText = (text: string) => ['negative', 'normal'].includes(qualitativeKey(text) ?? '');

/** The patient's site range (ItemLimits.siteRange) in the measure's unit, open sides infinite; none if it does not convert. */
function siteInMeasure(limits: ItemLimits, measure: AnalyteMeasure): readonly [number, number] | undefined {
  const site = limits.siteRange;
  if (!site || (site.low === null && site.high === null)) return undefined;
  const from = site.unit || limits.units?.[0];
  const to = measure.units[0]!;
  const factor = !from || measure.units.some((u) => sameUnit(u, from)) ? 1 : unitFactor(from, to, site.molarMass);
  if (factor === null) return undefined;
  return [
    site.low === null ? 0 : site.low * factor,
    site.high === null ? Number.POSITIVE_INFINITY : site.high * factor,
  ];
}

/**
 * The doubts about a row judged as one measure of one analyte (its unit already matched, or none printed), against
 * the patient's site range where it is known (`site`, in the measure's unit), else the analyte's typical range.
 */
function measureDoubts(
  value: NumericValue,
  flag: string,
  printed: ReturnType<typeof parsePrintedRange>,
  measure: AnalyteMeasure,
  site?: readonly [number, number],
) {
  const doubts: OfferReason[] = [];
  const reference = site ?? measure.reference;
  const [low, high] = measure.plausible;
  if (value.n < low || value.n > high) doubts.push(OFFER_REASONS.implausible);
  else if (measure.fractional && value.whole && value.n > (printed ?? reference)[1]) {
    doubts.push(OFFER_REASONS.lostPoint);
  }
  if (printed && !rangeAgrees(printed, reference)) doubts.push(OFFER_REASONS.range);
  if (!printed && !value.comparator && flag) {
    if (site) {
      // The patient's own range is the one the report's flag was set by: the flag must say what it says.
      const computed = value.n < site[0] ? '↓' : value.n > site[1] ? '↑' : '';
      if (computed !== flag) doubts.push(OFFER_REASONS.flag);
    } else {
      // Without a printed range the flag is judged against the typical one: an ↑ below its low bound is wrong anywhere.
      const [typicalLow, typicalHigh] = measure.reference;
      if ((flag === '↑' && value.n < typicalLow) || (flag === '↓' && value.n > typicalHigh)) {
        doubts.push(OFFER_REASONS.flag);
      }
    }
  }
  return doubts;
}

/** The doubts about a row judged as one analyte. */
function analyteDoubts(row: JudgedRow, analyte: KnownAnalyte, limits: ItemLimits): OfferReason[] {
  const value = numericValue(row.value);
  if (!analyte.measures) return value ? [OFFER_REASONS.needQualitative] : [];
  if (!value) return [OFFER_REASONS.needNumber];
  const unit = normaliseUnit(row.unit);
  const itemUnit = limits.units?.[0];
  const printed = parsePrintedRange(row.referenceRange);
  const ofUnit = (u: string) => analyte.measures!.filter((m) => m.units.some((mu) => sameUnit(mu, u)));

  const doubts: OfferReason[] = [];
  const usual = analyte.measures.filter((m) => !m.conventional);
  let candidates: readonly AnalyteMeasure[];
  if (unit) {
    candidates = ofUnit(unit);
    if (candidates.length === 0) {
      // Not the analyte's unit: its value and range are still judged (in its usual units) to say all that is wrong.
      doubts.push(OFFER_REASONS.unit);
      candidates = usual;
    } else if (candidates.every((m) => m.conventional) && !itemUnit) {
      // A conventional unit fills only an item asking for it (a mismatch with the item's unit is judged apart).
      doubts.push(OFFER_REASONS.uncommonUnit);
    }
  } else {
    // No unit read: the item's unit, else any usual unit of the analyte.
    const ofItem = itemUnit ? ofUnit(itemUnit) : [];
    candidates = ofItem.length > 0 ? ofItem : usual;
  }
  const best = candidates
    .map((measure) => measureDoubts(value, arrow(row.flag), printed, measure, siteInMeasure(limits, measure)))
    .reduce((a, b) => (b.length < a.length ? b : a));
  return [...doubts, ...best];
}

/** The doubts about a row of an analyte the table does not know: it fills only on what the item can confirm. */
function unknownDoubts(row: JudgedRow, limits: ItemLimits): OfferReason[] {
  const itemUnit = limits.units?.[0];
  const unitConfirmed = Boolean(itemUnit && row.unit && sameUnit(row.unit, itemUnit));
  const printed = parsePrintedRange(row.referenceRange);
  const ranges = (limits.referenceRanges ?? []).map(
    ([low, high]) => [low ?? 0, high ?? Number.POSITIVE_INFINITY] as const,
  );
  if (printed && ranges.length > 0) {
    return ranges.some((r) => rangeAgrees(printed, r)) ? [] : [OFFER_REASONS.range];
  }
  return unitConfirmed ? [] : [OFFER_REASONS.unknown];
}

/** The known analytes a row may be: the item's (those the row also names first), else the row's name's and code's. */
function candidateAnalytes(row: JudgedRow, limits: ItemLimits): KnownAnalyte[] {
  const own = [knownAnalyte(row.name), row.code ? knownAnalyte(row.code) : undefined].filter(
    (a): a is KnownAnalyte => a !== undefined,
  );
  const ofItem = (limits.analytes ?? [])
    .map((code) => analyteByCode(code))
    .filter((a): a is KnownAnalyte => a !== undefined);
  if (ofItem.length === 0) return [...new Set(own)];
  const shared = ofItem.filter((a) => own.includes(a));
  return [...new Set(shared.length > 0 ? shared : ofItem)];
}

/**
 * The verdict on one recognised row for the item it would fill. Offered, with each reason, when:
 * its OCR confidence is below MIN_FILL_PROBABILITY; its value is outside the analyte's plausible range in its unit,
 * or looks like one with its decimal point lost (`035`; a whole 41 where 4.1 is printed with decimals);
 * its unit is not one of the analyte's (or a conventional one the item does not ask for); its unit is not the
 * item's; its printed range is not the analyte's (a shifted row); its flag contradicts its value and printed range
 * (or, with none printed, the patient's site range, else the analyte's typical range); a qualitative analyte has a number or a quantitative one
 * text; a `<`/`>` result goes into a numeric item; the value is outside the item's validate.min/max; or the
 * analyte is unknown and the item confirms neither its unit nor its range. A row that names several known
 * analytes (白细胞 WBC or LEU) is judged as the one it fits best.
 */
export function judgeRecognised(row: JudgedRow, limits: ItemLimits = {}): RecognisedVerdict {
  const found = new Set<OfferReason>();
  if (typeof row.probability === 'number' && row.probability < MIN_FILL_PROBABILITY) {
    found.add(OFFER_REASONS.lowConfidence);
  }

  const analytes = candidateAnalytes(row, limits);
  const doubts =
    analytes.length === 0
      ? unknownDoubts(row, limits)
      : analytes.map((a) => analyteDoubts(row, a, limits)).reduce((a, b) => (b.length < a.length ? b : a));
  for (const d of doubts) found.add(d);

  const value = numericValue(row.value);
  if (value && LEADING_ZERO_RE.test(row.value.normalize('NFKC').trim())) found.add(OFFER_REASONS.lostPoint);
  // A flag that says the opposite of value and printed range (no flag is no contradiction: it may not be printed).
  const printed = parsePrintedRange(row.referenceRange);
  const flag = arrow(row.flag);
  if (value && !value.comparator && printed && flag) {
    const computed = value.n < printed[0] ? '↓' : value.n > printed[1] ? '↑' : '';
    if (computed !== flag) found.add(OFFER_REASONS.flag);
  }
  if (!value && flag && negativeText(row.value)) found.add(OFFER_REASONS.flag);

  const itemUnit = limits.units?.[0];
  if (itemUnit && row.unit && !sameUnit(row.unit, itemUnit)) found.add(OFFER_REASONS.formUnit);
  if (value && limits.numeric && value.comparator) found.add(OFFER_REASONS.inexact);
  if (value && ((limits.min != null && value.n < limits.min) || (limits.max != null && value.n > limits.max))) {
    found.add(OFFER_REASONS.formLimits);
  }

  const order = Object.values(OFFER_REASONS);
  const reasons = [...found].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { verdict: reasons.length === 0 ? 'fill' : 'offer', reasons };
}

/** Numeric item types (mapping.ts fills them with numbers only). */
const NUMERIC_TYPES = new Set(['int', 'real', 'number']);

/**
 * What a form item tells the judgement: its bounds, units, reference ranges; `analytes` from the caller's matching.
 * `siteRange`: the patient's site range for the item (参考范围, issue 37), the one its save would judge by: it
 * replaces the item's own ranges, in the item's first unit (none when the units do not convert: no range confirms),
 * and judges a known analyte in place of the table's typical range (ItemLimits.siteRange).
 */
export function itemLimitsOf(node: CrfNode, analytes: readonly string[] = [], siteRange?: RangeOverride): ItemLimits {
  const rule = itemRule(node);
  const numeric = NUMERIC_TYPES.has(node.type);
  const o = node.option;
  const site = siteRange ? overrideInUnit(siteRange, o, unitsOf(o)[0]) : null;
  const ranges = (
    siteRange
      ? site
        ? [[site.min, site.max] as const]
        : []
      : [
          [toNumber(o.refValueMaleMin), toNumber(o.refValueMaleMax)] as const,
          [toNumber(o.refValueFemaleMin), toNumber(o.refValueFemaleMax)] as const,
        ]
  ).filter(([low, high]) => low !== null || high !== null);
  return {
    ...(numeric ? { min: rule.min ?? null, max: rule.max ?? null } : {}),
    units: unitsOf(o),
    analytes,
    referenceRanges: ranges,
    numeric,
    ...(site && (site.min !== null || site.max !== null)
      ? {
          siteRange: {
            low: site.min,
            high: site.max,
            unit: unitsOf(o)[0] ?? siteRange?.unit ?? null,
            molarMass: toNumber(o.molarMass),
          },
        }
      : {}),
  };
}
