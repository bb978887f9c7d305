import type { SpineMeasure } from './measure.js';

/**
 * Diagnosis bands of forms §9 (SPM-15..SPM-25). The bounds are the spec's; the texts are ours (the spec says
 * "the Chinese wording … is not shown"), as is the TK/LL band 60–65° (docs/decisions.md, SPM-17, SPM-25).
 * Units: degrees; SVA in centimetres; ISH and CVH the ratio of the mean of lines a, b, c to line d.
 */

export interface Diagnosis {
  diagnosis: string;
  /** Only ISH has symptom and advice texts (SPM-23); elsewhere empty. */
  symptom: string;
  medicalAdvice: string;
}

export interface DiagnosisBand extends Diagnosis {
  /** Interval notation, e.g. "[20, 45)"; ∞ for no bound. */
  range: string;
}

export type DiagnosedMeasure = Exclude<SpineMeasure, 'PI' | 'PT'>;

/**
 * Which bands a study reads its measures by (项目设置 · 脊柱诊断分级标准): the spec's (forms §9, the default) or
 * the literature's (SRS–Schwab for SVA, PT and PI−LL; Vialle et al. for LL; Meyerding with grade V for ISH and CVH;
 * the spec's elsewhere). docs/spine-tools.md cites each.
 */
export const SPINE_BAND_SETS = ['spec', 'literature'] as const;
export type SpineBandSet = (typeof SPINE_BAND_SETS)[number];
export const DEFAULT_SPINE_BAND_SET: SpineBandSet = 'spec';

/** What a band set diagnoses: the measures, and PI−LL (read into PI's diagnosis when LL is on the same film). */
export type BandedKey = SpineMeasure | 'PI-LL';

const only = (range: string, diagnosis: string): DiagnosisBand => ({
  range,
  diagnosis,
  symptom: '',
  medicalAdvice: '',
});

/** TK and LL share bounds (SPM-16); 60–65° is read as mild, the lower neighbour (SPM-17). */
const kyphosisLike = (name: string, insufficient: string): DiagnosisBand[] => [
  only('(-∞, 20)', insufficient),
  only('[20, 45)', `${name}正常`),
  only('[45, 65)', `${name}轻度增大`),
  only('[65, 75)', `${name}中度增大`),
  only('[75, ∞)', `${name}重度增大`),
];

const grades = ['Ⅰ', 'Ⅱ', 'Ⅲ', 'Ⅳ', 'Ⅴ'] as const;
const slipRanges = ['(-∞, 0.25)', '[0.25, 0.5)', '[0.5, 0.75)', '[0.75, ∞)'] as const;

const ISH_TEXTS: readonly { symptom: string; medicalAdvice: string }[] = [
  {
    symptom: '多无明显症状，或仅有轻度腰痛，久站、劳累后加重，休息后缓解。',
    medicalAdvice:
      '以保守治疗为主：避免弯腰负重及剧烈运动，加强腰背肌和核心肌群锻炼，必要时佩戴腰围；每6～12个月复查腰椎X线（含动力位片）。',
  },
  {
    symptom: '腰痛较明显，可伴臀部及下肢放射痛、麻木，部分患者出现间歇性跛行。',
    medicalAdvice:
      '先行规范保守治疗3～6个月（休息、非甾体抗炎药、康复锻炼）；完善腰椎MRI或CT评估神经受压情况；症状无缓解或出现神经功能障碍时考虑手术（减压、椎间融合内固定）。',
  },
  {
    symptom: '持续腰痛，下肢放射痛、麻木明显，间歇性跛行，可伴腰骶部台阶感、腰椎前凸增大及腘绳肌紧张。',
    medicalAdvice: '建议脊柱外科手术治疗：神经减压、复位及椎间融合内固定；术前完善腰椎MRI、CT及全脊柱站立位X线评估。',
  },
  {
    symptom: '严重腰腿痛，可伴下肢肌力减退、鞍区感觉减退或大小便功能障碍，躯干短缩、姿势及步态异常。',
    medicalAdvice: '尽早手术治疗（减压、复位及融合内固定）；出现大小便功能障碍等马尾神经受压表现时应急诊手术。',
  },
  {
    symptom: '滑脱椎体完全移出下位椎体前方，腰骶部明显畸形、躯干短缩，严重腰腿痛，常伴马尾神经受压表现。',
    medicalAdvice:
      '腰椎完全滑脱（滑移超过100%），应尽早脊柱外科手术治疗（减压、复位或原位融合内固定）；有马尾神经受压表现时急诊手术。',
  },
];

export const SPINE_DIAGNOSIS_BANDS: Readonly<Record<DiagnosedMeasure, readonly DiagnosisBand[]>> = {
  TK: kyphosisLike('胸椎后凸', '胸椎后凸不足'),
  LL: kyphosisLike('腰椎前凸', '腰椎前凸不足'),
  SS: [
    only('(-∞, 10)', '骶骨倾斜角重度减小'),
    only('[10, 20)', '骶骨倾斜角中度减小'),
    only('[20, 30)', '骶骨倾斜角轻度减小'),
    only('[30, 50)', '骶骨倾斜角正常'),
    only('[50, 60)', '骶骨倾斜角轻度增大'),
    only('[60, 70]', '骶骨倾斜角中度增大'),
    only('(70, ∞)', '骶骨倾斜角重度增大'),
  ],
  LS: [only('(-∞, 10]', '滑脱角正常'), only('(10, ∞)', '滑脱角增大，有滑脱进展风险')],
  LCA: [
    only('(-∞, 10)', '阴性（未达脊柱侧凸诊断标准）'),
    only('[10, 25]', '脊柱侧凸，建议定期随访观察'),
    only('(25, 40]', '脊柱侧凸，建议支具治疗'),
    only('(40, ∞)', '脊柱侧凸，建议考虑手术治疗'),
  ],
  CL: [
    only('(-∞, 10)', '颈椎前凸中度减小'),
    only('[10, 20)', '颈椎前凸轻度减小'),
    only('[20, 40]', '颈椎前凸正常'),
    only('(40, 50]', '颈椎前凸轻度增大'),
    only('(50, 60]', '颈椎前凸中度增大'),
    only('(60, ∞)', '颈椎前凸重度增大'),
  ],
  ISH: slipRanges.map((range, i) => ({ range, diagnosis: `峡部裂性腰椎滑脱${grades[i]}度`, ...ISH_TEXTS[i]! })),
  CVH: slipRanges.map((range, i) => only(range, `颈椎滑脱${grades[i]}度`)),
  SVA: [only('(-∞, 5)', '矢状面轻度失衡'), only('[5, 9.5]', '矢状面中度失衡'), only('(9.5, ∞)', '矢状面重度失衡')],
};

/** Meyerding (1932) with grade V (spondyloptosis, over 100%): each grade's upper bound belongs to it. */
const meyerdingRanges = ['(-∞, 0.25]', '(0.25, 0.5]', '(0.5, 0.75]', '(0.75, 1]', '(1, ∞)'] as const;

/** An SRS–Schwab modifier: 0 below `lo`, + from `lo` to `hi` inclusive, ++ above `hi`. */
const schwab = (name: string, lo: string, hi: string, [zero, plus, plusPlus]: readonly [string, string, string]) => [
  only(`(-∞, ${lo})`, `${name}${zero}（SRS–Schwab 0）`),
  only(`[${lo}, ${hi}]`, `${name}${plus}（SRS–Schwab +）`),
  only(`(${hi}, ∞)`, `${name}${plusPlus}（SRS–Schwab ++）`),
];

/**
 * The literature's bands (docs/spine-tools.md): SVA, PT and PI−LL by the SRS–Schwab modifiers (Schwab et al.,
 * Spine 2012); LL normal 40–80° (mean ± 2 SD of Vialle et al., JBJS Am 2005); ISH and CVH Meyerding's grades I–V;
 * TK, SS, LS, LCA and CL as the spec's.
 */
export const SPINE_LITERATURE_BANDS: Readonly<Partial<Record<BandedKey, readonly DiagnosisBand[]>>> = {
  ...SPINE_DIAGNOSIS_BANDS,
  SVA: schwab('矢状面', '4', '9.5', ['平衡', '中度失衡', '重度失衡']),
  PT: schwab('骨盆倾斜角', '20', '30', ['正常', '中度增大', '重度增大']),
  'PI-LL': schwab('PI−LL', '10', '20', ['匹配', '中度不匹配', '重度不匹配']),
  LL: [only('(-∞, 40)', '腰椎前凸减小'), only('[40, 80]', '腰椎前凸正常'), only('(80, ∞)', '腰椎前凸增大')],
  ISH: meyerdingRanges.map((range, i) => ({ range, diagnosis: `峡部裂性腰椎滑脱${grades[i]}度`, ...ISH_TEXTS[i]! })),
  CVH: meyerdingRanges.map((range, i) => only(range, `颈椎滑脱${grades[i]}度`)),
};

/** The bands of each set, by what they diagnose. */
export const SPINE_BAND_TABLES: Readonly<
  Record<SpineBandSet, Readonly<Partial<Record<BandedKey, readonly DiagnosisBand[]>>>>
> = { spec: SPINE_DIAGNOSIS_BANDS, literature: SPINE_LITERATURE_BANDS };

interface Interval {
  lo: number;
  loClosed: boolean;
  hi: number;
  hiClosed: boolean;
}

function parseRange(range: string): Interval {
  const m = /^([[(])\s*(-∞|[-\d.]+)\s*,\s*(∞|[-\d.]+)\s*([\])])$/.exec(range);
  if (!m) throw new Error(`bad band range ${range}`);
  return {
    lo: m[2] === '-∞' ? -Infinity : Number(m[2]),
    loClosed: m[1] === '[',
    hi: m[3] === '∞' ? Infinity : Number(m[3]),
    hiClosed: m[4] === ']',
  };
}

const parsed = (table: Readonly<Partial<Record<BandedKey, readonly DiagnosisBand[]>>>) =>
  new Map(
    Object.entries(table).map(([key, bands]) => [
      key,
      bands.map((band) => ({ band, interval: parseRange(band.range) })),
    ]),
  );
const PARSED = { spec: parsed(SPINE_DIAGNOSIS_BANDS), literature: parsed(SPINE_LITERATURE_BANDS) };

/** A stored band set read leniently: anything but `literature` is the spec's. */
export const spineBandSetOf = (value: unknown): SpineBandSet => (value === 'literature' ? 'literature' : 'spec');

function contains(i: Interval, v: number): boolean {
  return (i.loClosed ? v >= i.lo : v > i.lo) && (i.hiClosed ? v <= i.hi : v < i.hi);
}

/**
 * The band a measure's value falls in: degrees signed as docs/spine-tools.md says (callers pass the integer shown,
 * SPM-14, so the diagnosis matches the number on screen), SVA in centimetres, ISH and CVH the slip ratio, `PI-LL`
 * PI minus LL in degrees. Null where the set has no bands (PI, PT and PI−LL in the spec's) and for a value that is
 * not a finite number.
 */
export function diagnose(
  measure: BandedKey,
  value: number | null | undefined,
  bandSet: SpineBandSet = DEFAULT_SPINE_BAND_SET,
): Diagnosis | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const found = PARSED[spineBandSetOf(bandSet)].get(measure)?.find(({ interval }) => contains(interval, value));
  if (!found) return null;
  const { diagnosis, symptom, medicalAdvice } = found.band;
  return { diagnosis, symptom, medicalAdvice };
}
