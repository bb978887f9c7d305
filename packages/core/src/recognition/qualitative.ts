/**
 * Qualitative results (尿常规 and other tests): read from a report as printed (`阴性(-)`, `-`, `+-`, `阳性(+)`, `2+`,
 * `淡黄色`), and known equal when two printings say the same (`阴性(-)`, `阴性` and `-`), so that a recognised result
 * can fill a form's single choice whichever way the form spells its options.
 */

/** The grades of a dipstick: -, ±, + to ++++ (1+ to 4+), alone or in brackets after a word. */
const GRADE = String.raw`(?:\+-|-\+|±|[+-]|\+{1,4}|[1-4]\+|\+[1-4])`;
/** Words printed as results, Chinese and English (any case). */
const WORDS = [
  '阴性',
  '阳性',
  '弱阳性',
  '极弱阳性',
  '可疑阳性',
  '可疑',
  '正常',
  '微量',
  '少量',
  '少许',
  '偶见',
  '未见',
  '查见',
  '满视野',
  '清亮',
  '清',
  '透明',
  '微浑',
  '微混',
  '浑浊',
  '混浊',
  '淡黄色',
  '浅黄色',
  '深黄色',
  '草黄色',
  '黄色',
  '淡黄',
  '黄',
  '无色',
  '淡红色',
  '红色',
  '褐色',
  '棕色',
  '乳白色',
  'negative',
  'neg',
  'positive',
  'pos',
  'normal',
  'norm',
  'trace',
];
const QUALITATIVE_RE = new RegExp(`^(?:(?:${WORDS.join('|')})(?:\\(${GRADE}\\))?|\\(${GRADE}\\)|${GRADE})$`, 'i');

/** The printed text in one form: full-width brackets and signs made plain, every dash a `-`, no spaces. */
export function qualitativeText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[－—–―‐‑−]/g, '-')
    .replace(/\s+/g, '');
}

/** Whether a printed text is a qualitative result. */
export function isQualitative(text: string): boolean {
  return QUALITATIVE_RE.test(qualitativeText(text));
}

/** What a qualitative result says, whatever its printing: the grades, or negative, trace, positive, normal. */
export type QualitativeKey = 'negative' | 'trace' | '1+' | '2+' | '3+' | '4+' | 'positive' | 'normal';

function gradeKey(grade: string): QualitativeKey {
  if (grade === '-') return 'negative';
  if (grade === '±' || grade === '+-' || grade === '-+') return 'trace';
  const n = /^\+{1,4}$/.test(grade) ? grade.length : Number(grade.replace(/\+/g, ''));
  return `${n}+` as QualitativeKey;
}

const WORD_KEYS: Record<string, QualitativeKey> = {
  阴性: 'negative',
  negative: 'negative',
  neg: 'negative',
  弱阳性: 'trace',
  极弱阳性: 'trace',
  可疑阳性: 'trace',
  可疑: 'trace',
  微量: 'trace',
  trace: 'trace',
  阳性: 'positive',
  positive: 'positive',
  pos: 'positive',
  正常: 'normal',
  normal: 'normal',
  norm: 'normal',
};

/**
 * What a printed qualitative result says: `阴性`, `阴性(-)`, `-`, `NEG` are negative; `±`, `+-`, `弱阳性`, `微量` trace;
 * `+`, `1+`, `阳性(+)` 1+ (and so on to 4+); `阳性` alone positive; `正常` normal. A grade in brackets decides over its
 * word. Undefined for a colour, a clarity, a count word (偶见) and anything not qualitative.
 */
export function qualitativeKey(text: string): QualitativeKey | undefined {
  const t = qualitativeText(text);
  if (!QUALITATIVE_RE.test(t)) return undefined;
  const bracketed = new RegExp(`\\((${GRADE})\\)$`).exec(t);
  if (bracketed) return gradeKey(bracketed[1]!);
  if (new RegExp(`^${GRADE}$`).test(t)) return gradeKey(t);
  return WORD_KEYS[t.toLowerCase()];
}

/** Whether two printed qualitative results say the same (`阴性(-)` and `阴性`, `+-` and `±`, `阳性(++)` and `2+`). */
export function sameQualitative(a: string, b: string): boolean {
  const key = qualitativeKey(a);
  return key !== undefined && key === qualitativeKey(b);
}

/**
 * The index of the option a qualitative result fills among a single choice's option texts, or -1: the option
 * printed the same; else the one option saying the same (`阴性(-)` fills `阴性`, `-` fills `阴性`); else, for a graded
 * positive result (`2+`, `阳性(++)`), the one ungraded `阳性` option. Trace is no grade of either: `±` fills `±`,
 * `+-` or `弱阳性`, never `阴性` or `阳性`.
 */
export function qualitativeOption(value: string, options: readonly string[]): number {
  if (!isQualitative(value)) return -1;
  const text = qualitativeText(value).toLowerCase();
  const printed = options.findIndex((o) => qualitativeText(o).toLowerCase() === text);
  if (printed >= 0) return printed;
  const key = qualitativeKey(value);
  if (key === undefined) return -1;
  const only = (wanted: QualitativeKey) => {
    const hits = options.flatMap((o, i) => (qualitativeKey(o) === wanted ? [i] : []));
    return hits.length === 1 ? hits[0]! : -1;
  };
  const same = only(key);
  if (same >= 0 || !/^[1-4]\+$/.test(key)) return same;
  return only('positive');
}
