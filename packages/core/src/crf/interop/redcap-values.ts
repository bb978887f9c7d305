/**
 * Values as REDCap takes them: choice codes it accepts, its checkbox column names, and a value written the way the
 * field's validation asks (REDCap's data import checks each value with the validation's pattern). Shared by the
 * data dictionary export, the REDCap API's records and the data export's REDCap file, so all three agree.
 */
import type { CrfNode } from '../crf-definition.schema.js';
import { itemTypeOf } from '../item-types/registry.js';
import { choicesOf } from '../options.js';

/**
 * REDCap's rule for a multiple-choice raw code (MetaData.php's dictionary check, radio, dropdown and checkbox alike):
 * a number, or letters, digits, `.`, `_` and `-` only. `L1/2` is refused.
 */
const LEGAL_CODE = /^[A-Za-z0-9._-]+$/;

/**
 * A checkbox code as REDCap writes it in its export column `<field>___<code>` (Project::getExtendedCheckboxCodeFormatted):
 * `-` as `_`, in lower case, any other character that is not a letter, digit or `_` dropped (`1.5` → `15`).
 */
export const redcapCheckboxCode = (code: string) =>
  code
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/[^a-z_0-9]/g, '');

export const redcapCheckboxColumn = (variable: string, redcapCode: string) =>
  `${variable}___${redcapCheckboxCode(redcapCode)}`;

/** One choice of an item: our code, the code REDCap has for it, and its label. */
export interface RedcapChoiceCode {
  code: string;
  redcap: string;
  text: string;
}

/** Whether REDCap writes the item as a checkbox (one 0/1 column per choice): multiple choices. */
export const isRedcapCheckbox = (node: Pick<CrfNode, 'type' | 'option'>) =>
  itemTypeOf(node.type).exportKind(node as CrfNode) === 'perChoice';

const cache = new WeakMap<CrfNode, RedcapChoiceCode[]>();

/**
 * The item's choices with the codes REDCap has for them: a code REDCap accepts stays as it is; another becomes its
 * legal characters with `_` for the rest (`L1/2` → `L1_2`), or `c<n>` by its position when that is empty or taken.
 * A checkbox's codes must also give distinct export columns (`A` and `a`, `1.5` and `15` share one in REDCap), so a
 * code whose column is taken is renamed too. The same item always gives the same codes.
 */
export function redcapChoiceCodes(node: CrfNode): RedcapChoiceCode[] {
  const known = cache.get(node);
  if (known) return known;
  const checkbox = isRedcapCheckbox(node);
  const key = (code: string) => (checkbox ? redcapCheckboxCode(code) : code);
  const fits = (code: string) => LEGAL_CODE.test(code) && key(code) !== '';
  const choices = choicesOf(node.option);
  const taken = new Set<string>();
  const kept = choices.map((c) => {
    if (!fits(c.value) || taken.has(key(c.value))) return null;
    taken.add(key(c.value));
    return c.value;
  });
  // Renamed codes must not take the key of a code kept later in the list either.
  for (const code of choices.map((c) => c.value)) if (fits(code)) taken.add(key(code));
  const out = choices.map((c, i) => {
    let redcap = kept[i];
    if (redcap === null || redcap === undefined) {
      const cleaned = c.value.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '');
      redcap = fits(cleaned) && !taken.has(key(cleaned)) ? cleaned : `c${i + 1}`;
      for (let n = 2; taken.has(key(redcap)); n += 1) redcap = `c${i + 1}_${n}`;
      taken.add(key(redcap));
    }
    return { code: c.value, redcap, text: c.text };
  });
  cache.set(node, out);
  return out;
}

/** Our code as REDCap's (unchanged when REDCap accepts it, or when it is not one of the item's codes). */
export function toRedcapCode(node: CrfNode, code: string): string {
  return redcapChoiceCodes(node).find((c) => c.code === code)?.redcap ?? code;
}

/** REDCap's code as ours: the inverse of toRedcapCode. */
export function fromRedcapCode(node: CrfNode, redcap: string): string {
  return redcapChoiceCodes(node).find((c) => c.redcap === redcap)?.code ?? redcap;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A value (our stored text) written the way its REDCap validation asks, when it can be without changing it: a number
 * for `number_Ndp` padded to N decimals (`36` → `36.0`), a date-time's `T` as a space, the seconds a `_seconds`
 * date-time or `time_hh_mm_ss` asks for added as `:00`, and zero seconds dropped where the validation has none.
 * Anything else is returned as it is; whether it fits is REDCap's to judge (redcapValueFits).
 */
export function redcapValue(validation: string, value: string): string {
  const text = value.trim();
  const places = /^number_(\d)dp$/.exec(validation);
  if (places) {
    const n = Number(places[1]);
    const m = new RegExp(`^(-?\\d+)(?:\\.(\\d{0,${n}}))?$`).exec(text);
    return m ? `${m[1]}.${(m[2] ?? '').padEnd(n, '0')}` : text;
  }
  if (validation.startsWith('datetime')) {
    const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2}))?$/.exec(text);
    if (!m) return text;
    if (validation.startsWith('datetime_seconds')) return `${m[1]} ${m[2]}:${m[3] ?? '00'}`;
    return !m[3] || m[3] === '00' ? `${m[1]} ${m[2]}` : text;
  }
  if (validation === 'time_hh_mm_ss') return /^\d{2}:\d{2}$/.test(text) ? `${text}:00` : text;
  if (validation === 'time') return /^\d{2}:\d{2}:00$/.test(text) ? text.slice(0, 5) : text;
  if (validation.startsWith('date_')) {
    // A date read from a spreadsheet may carry a midnight time.
    const m = /^(\d{4}-\d{2}-\d{2})[T ]00:00(:00)?$/.exec(text);
    return m ? m[1]! : text;
  }
  return text;
}

const DAYS = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const realDate = (text: string) => {
  if (!DATE.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  return m >= 1 && m <= 12 && d >= 1 && d <= DAYS(y, m);
};
const FITS: Record<string, (text: string) => boolean> = {
  integer: (t) => /^[-+]?\d+$/.test(t),
  number: (t) => /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/.test(t),
  time: (t) => /^([0-9]|[0-1][0-9]|2[0-3]):[0-5][0-9]$/.test(t),
  time_hh_mm_ss: (t) => /^(\d|[01]\d|2[0-3])(:[0-5]\d){2}$/.test(t),
  email: (t) => /^[^@\s]+@[^@\s]+\.[^@\s]{2,63}$/.test(t),
};

/**
 * Whether REDCap's data import takes the value for a text field of this validation (its patterns, with dates in
 * Y-M-D as REDCap reads every date field's import): the data export leaves a value out, and says so, rather than
 * writing a file REDCap refuses. Validations not listed here (ours never writes them) are taken.
 */
export function redcapValueFits(validation: string, value: string): boolean {
  if (value === '' || validation === '') return true;
  const places = /^number_(\d)dp$/.exec(validation);
  if (places) return new RegExp(`^-?\\d+\\.\\d{${places[1]}}$`).test(value);
  if (validation.startsWith('datetime')) {
    const seconds = validation.startsWith('datetime_seconds');
    const m = /^(\S+) (\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value);
    return (
      m !== null &&
      realDate(m[1]!) &&
      Number(m[2]) <= 23 &&
      Number(m[3]) <= 59 &&
      (m[4] === undefined) !== seconds &&
      (m[4] === undefined || Number(m[4]) <= 59)
    );
  }
  if (validation.startsWith('date_')) return realDate(value);
  const fits = FITS[validation];
  return fits ? fits(value) : true;
}
