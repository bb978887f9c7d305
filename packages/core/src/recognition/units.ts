/**
 * Units as printed on lab reports, made one spelling each. Hospitals print the same unit many ways (`10*9/L`,
 * `×10⁹/L`, `10E9/L`, `G/L`), and the OCR adds its own (`mmo1/L`: a font's l read as 1; `109/L`: the superscript
 * read level; `umol/L` for μmol/L). A row answers its unit in the one spelling given here, so that a form, an export
 * or a nurse comparing units sees one text for one unit.
 */
import { SUPERSCRIPTS } from '../crf/units.js';

/** A lookup that knows only its own keys (not `constructor` or `valueOf`). */
const table = (entries: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(entries));

/** What stands before the slash, by its lower-case reading (OCR confusions included), and its spelling. */
const NUMERATORS = table({
  '': '',
  个: '',
  cells: '',
  mol: 'mol',
  mmol: 'mmol',
  mmo1: 'mmol',
  mmoi: 'mmol',
  rnmol: 'mmol',
  μmol: 'μmol',
  umol: 'μmol',
  μumol: 'μmol',
  uumol: 'μmol',
  umo1: 'μmol',
  μmo1: 'μmol',
  umoi: 'μmol',
  nmol: 'nmol',
  nmo1: 'nmol',
  pmol: 'pmol',
  pmo1: 'pmol',
  g: 'g',
  mg: 'mg',
  μg: 'μg',
  ug: 'μg',
  ng: 'ng',
  pg: 'pg',
  u: 'U',
  iu: 'IU',
  mu: 'mU',
  miu: 'mIU',
  μiu: 'μIU',
  uiu: 'μIU',
  ku: 'kU',
  kiu: 'kIU',
  au: 'AU',
  mosm: 'mOsm',
  ml: 'mL',
  l: 'L',
  mm: 'mm',
  meq: 'mEq',
  copies: 'copies',
});

/** What stands after the slash. */
const DENOMINATORS = table({
  l: 'L',
  '1': 'L',
  i: 'L',
  dl: 'dL',
  ml: 'mL',
  μl: 'μL',
  ul: 'μL',
  hp: 'HP',
  hpf: 'HP',
  lp: 'LP',
  lpf: 'LP',
  h: 'h',
  hr: 'h',
  '24h': '24h',
  kg: 'kg',
  min: 'min',
  mol: 'mol',
});

/** Units without a slash. */
const WORDS = table({
  '%': '%',
  '‰': '‰',
  fl: 'fL',
  pg: 'pg',
  mg: 'mg',
  ml: 'mL',
  s: 's',
  sec: 's',
  秒: 's',
  mmhg: 'mmHg',
  kpa: 'kPa',
  'ml/min/1.73m^2': 'mL/min/1.73m²',
  'ml/min/1.73m2': 'mL/min/1.73m²',
});

/** The ones a case cannot be read off: G/L (giga per litre) is 10^9/L, g/L is grams. */
const EXACT = table({ 'G/L': '10^9/L', 'T/L': '10^12/L' });

/** Superscript digits as a power: `10⁹` is `10^9` (NFKC would make it the number 109). */
export function levelSuperscripts(text: string): string {
  return text.replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (digits) => `^${[...digits].map((d) => SUPERSCRIPTS[d]).join('')}`);
}

function compact(text: string): string {
  let t = levelSuperscripts(text);
  // Taking spaces out can bring a base character and its combining mark together: repeat until nothing changes.
  for (let i = 0; i < 4; i++) {
    const next = t.normalize('NFKC').replace(/\s+/g, '');
    if (next === t) break;
    t = next;
  }
  return t;
}

/**
 * Counts per litre (or per μL): 10^9/L with whatever the printer or the OCR put between 10 and its exponent (`^`,
 * `*`, `E`; a dash, tilde or quote the caret was read as, then only with the litre, as `10-12` is a range), or the
 * exponent read level (`109/L`, `×109`: only the usual exponents, and only with the litre or the ×).
 */
function power(t: string): string | undefined {
  const m = /^([×xX*]?)10(\^|\*{1,2}|[Ee]|[-~'`·.]|)(\d{1,2})(\/?)(.*)$/.exec(t);
  if (!m) return undefined;
  const [, times, mark, exponent, slash, rest] = m;
  const per = rest ? DENOMINATORS.get(rest.toLowerCase()) : undefined;
  if (rest && per !== 'L' && per !== 'μL') return undefined;
  if (!mark) {
    const usual = ['3', '6', '9', '12'].includes(exponent!);
    if (!usual || (rest ? !slash : !times)) return undefined;
  } else if (/^[-~'`·.]$/.test(mark) && !per) {
    return undefined;
  }
  return `10^${Number(exponent)}/${per ?? 'L'}`;
}

function known(t: string): string | undefined {
  if (!t) return undefined;
  if (EXACT.has(t)) return EXACT.get(t);
  const counts = power(t);
  if (counts) return counts;
  // μ read as 从 (a common misreading of the micro sign).
  const lower = t.toLowerCase().replace(/^从/, 'μ');
  // Mg is magnesium's code, not milligrams.
  if (WORDS.has(lower) && !(lower === 'mg' && t !== 'mg')) return WORDS.get(lower);
  const slash = lower.indexOf('/');
  if (slash < 0 || slash !== lower.lastIndexOf('/')) return undefined;
  const numerator = NUMERATORS.get(lower.slice(0, slash));
  const denominator = DENOMINATORS.get(lower.slice(slash + 1));
  return numerator === undefined || denominator === undefined ? undefined : `${numerator}/${denominator}`;
}

/** The canonical spelling of a unit printed or read, or undefined when the text is no unit this knows. */
export function canonicalUnit(text: string): string | undefined {
  return known(compact(text));
}

/**
 * A unit in its one spelling: `10*9/L`, `×10⁹/L`, `10E9/L`, `10~9/L`, `109/L` and `G/L` are `10^9/L`; `mmo1/L` and
 * `mmol/l` are `mmol/L`; `umol/L`, `µmol/L` and `μmol/l` are `μmol/L`; `个/HP` is `/HP`. A unit this does not know
 * keeps its text (full-width forms and spaces taken out, a trailing `/l` made `/L`).
 */
export function normaliseUnit(text: string): string {
  const t = compact(text);
  return known(t) ?? t.replace(/\/l$/, '/L');
}

/** The spellings units are answered in (each is its own canonical spelling). */
export const CANONICAL_UNITS: readonly string[] = [
  ...new Set([
    ...['3', '6', '9', '12'].flatMap((e) => [`10^${e}/L`, `10^${e}/μL`]),
    ...WORDS.values(),
    ...[...NUMERATORS.values()].flatMap((n) => [...DENOMINATORS.values()].map((d) => `${n}/${d}`)),
  ]),
];
