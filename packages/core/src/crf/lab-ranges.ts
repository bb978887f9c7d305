import { knownAnalyte } from '../recognition/analytes.js';
import { isOn, toNumber, unitsOf } from './options.js';
import { referenceRange, type Gender } from './reference-range.js';
import { roundConverted, unitFactor } from './units.js';
import type { CrfDefinition, CrfNode, ItemOption } from './crf-definition.schema.js';

/**
 * 参考范围 (issue 37): a site laboratory's reference ranges. A lab value is judged by the patient's site's range for
 * its analyte, sex and age at the sample date; an item without such a range keeps its own (refValueMale…/Female…).
 */

/** One site range row as the engine reads it (lab_reference_ranges). Sex in the lab encoding: 1 male, 2 female. */
export interface LabReferenceRange {
  id: number;
  analyte: string;
  /** null: both sexes. */
  sex: 1 | 2 | null;
  /** Age band in years, [ageMin, ageMax); an open side null. */
  ageMin: number | null;
  ageMax: number | null;
  lower: number | null;
  upper: number | null;
  unit: string | null;
  /** yyyy-MM-dd. */
  effectiveFrom: string;
}

export interface RangeQuery {
  analyte: string;
  sex: 1 | 2 | null;
  /** The patient's age at the sample date in years (fractional); null when the birth date is unknown. */
  ageYears: number | null;
  /** yyyy-MM-dd. */
  sampleDate: string;
}

/** The lab file's sex code (1 男, 2 女) for the engine's gender. */
export const labSex = (gender: Gender | null): 1 | 2 | null => (gender === 'male' ? 1 : gender === 'female' ? 2 : null);

const analyteKey = (s: string) => s.normalize('NFKC').trim().toUpperCase();

function applies(row: LabReferenceRange, q: RangeQuery): boolean {
  if (analyteKey(row.analyte) !== analyteKey(q.analyte)) return false;
  if (row.effectiveFrom > q.sampleDate) return false;
  if (row.sex !== null && row.sex !== q.sex) return false;
  // A row bounded by age cannot be known to apply to a patient of unknown age: it does not.
  if (row.ageMin !== null && (q.ageYears === null || q.ageYears < row.ageMin)) return false;
  if (row.ageMax !== null && (q.ageYears === null || q.ageYears >= row.ageMax)) return false;
  return true;
}

const specificity = (r: LabReferenceRange) =>
  (r.sex !== null ? 4 : 0) + (r.ageMin !== null ? 1 : 0) + (r.ageMax !== null ? 1 : 0);

/**
 * The site range a value is judged by: of the rows matching the analyte, sex and age, the one effective latest on or
 * before the sample date (a lab's newer range replaces its older one); on the same date a sex-specific row before a
 * both-sexes one, then a bounded age band before an open one, then the row loaded last. None: the item's own range.
 */
export function chooseReferenceRange(ranges: readonly LabReferenceRange[], q: RangeQuery): LabReferenceRange | null {
  let best: LabReferenceRange | null = null;
  for (const row of ranges) {
    if (!applies(row, q)) continue;
    if (
      best === null ||
      row.effectiveFrom > best.effectiveFrom ||
      (row.effectiveFrom === best.effectiveFrom &&
        (specificity(row) > specificity(best) || (specificity(row) === specificity(best) && row.id > best.id)))
    ) {
      best = row;
    }
  }
  return best;
}

/**
 * The analyte code an item is judged under. Its `analyte` option when set (an explicit code wins); else the known
 * analyte its title, name, aliases or a code in brackets names, as recognition matches a lab row to it (白细胞计数
 * → WBC); else its name. Site rows name analytes by these codes.
 */
export function itemAnalyte(node: Pick<CrfNode, 'name' | 'title' | 'option'>): string {
  const explicit = typeof node.option.analyte === 'string' ? node.option.analyte.trim() : '';
  if (explicit) return explicit;
  const bracket = /[(（]([^()（）]+)[)）]\s*$/.exec(node.title)?.[1];
  const titleBare = node.title.replace(/[(（][^()（）]*[)）]\s*$/, '');
  const raw: unknown = node.option.aliases;
  const aliases = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(/[,，、;；]/) : [];
  for (const key of [node.name, titleBare, ...aliases, ...(bracket ? [bracket] : [])]) {
    const code = key ? knownAnalyte(key)?.code : undefined;
    if (code) return code;
  }
  return node.name;
}

/** The patient's age in completed months over twelve at `date` (both yyyy-MM-dd): 0.5 is six months old. */
export function ageInYears(birth: string | null | undefined, date: string): number | null {
  const b = /^(\d{4})-(\d{2})-(\d{2})/.exec(birth ?? '');
  const d = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!b || !d) return null;
  let months = (Number(d[1]) - Number(b[1])) * 12 + (Number(d[2]) - Number(b[2]));
  if (Number(d[3]) < Number(b[3])) months -= 1;
  return months < 0 ? null : months / 12;
}

const NUMERIC_TYPES = new Set(['int', 'real', 'number']);

/** The top-level numeric items of a form, the ones a lab range judges (row children are not judged by site). */
export function rangedItems(definition: CrfDefinition): CrfNode[] {
  const out: CrfNode[] = [];
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (NUMERIC_TYPES.has(node.type) && node.name) out.push(node);
      else if (['section', 'group', 'card', 'title'].includes(node.type)) walk(node.children);
    }
  };
  walk(definition.children);
  return out;
}

/**
 * The sample date of a lab form: the value of its item marked `sampleDate` (a date item, yyyy-MM-dd…), else the
 * record's first save date, else today. Always yyyy-MM-dd.
 */
export function sampleDateOf(
  definition: CrfDefinition,
  values: Readonly<Record<string, unknown>>,
  fallbacks: { recordDate?: string | null; today: string },
): string {
  let found: string | null = null;
  const walk = (nodes: readonly CrfNode[]) => {
    for (const node of nodes) {
      if (found !== null) return;
      if (node.name && isOn(node.option.sampleDate)) {
        const m = /^\d{4}-\d{2}-\d{2}/.exec(String(values[node.name] ?? ''));
        if (m) found = m[0];
      }
      walk(node.children);
    }
  };
  walk(definition.children);
  return found ?? fallbacks.recordDate ?? fallbacks.today;
}

/** A range a value is judged by instead of the item's own, in `unit` (the item's first unit when null). */
export interface RangeOverride {
  lower: number | null;
  upper: number | null;
  unit: string | null;
}

/** What crf_data_records.lab_ranges holds per item: the range its value was judged by at the last save. */
export interface UsedRange extends RangeOverride {
  source: 'site' | 'item';
  rangeId: number | null;
}

/** The override range in the unit the value was entered in; none when the units do not convert. */
export function overrideInUnit(
  range: RangeOverride,
  option: ItemOption,
  unit: string | null | undefined,
): { min: number | null; max: number | null } | null {
  const from = range.unit || unitsOf(option)[0];
  const to = unit || unitsOf(option)[0];
  if (!from || !to) return { min: range.lower, max: range.upper };
  const factor = unitFactor(from, to, toNumber(option.molarMass));
  if (factor === null) return null;
  const scale = (n: number | null) => (n === null ? null : roundConverted(n * factor));
  return { min: scale(range.lower), max: scale(range.upper) };
}

/**
 * The ↑/↓ of a value: by its override range when it has one, else by the item's own for the gender (forms §4; bounds
 * are inside). The one place evaluate-form asks.
 */
export function judgedIndicator(
  value: unknown,
  option: ItemOption,
  gender: Gender | null,
  unit: string | null | undefined,
  override: RangeOverride | undefined,
): 'low' | 'high' | null {
  const range = override ? overrideInUnit(override, option, unit) : referenceRange(option, gender, unit);
  if (!range) return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? toNumber(value) : null;
  if (n === null) return null;
  if (range.min !== null && n < range.min) return 'low';
  if (range.max !== null && n > range.max) return 'high';
  return null;
}

/**
 * The range each ranged item is judged by: the site's chosen row, else the item's own for the gender (in its first
 * unit). Items with neither are absent. `overrides` are the site ones to pass to the engine, `used` what to store.
 */
export function rangesForForm(
  definition: CrfDefinition,
  siteRanges: readonly LabReferenceRange[],
  patient: { gender: Gender | null; ageYears: number | null; sampleDate: string },
): { overrides: Record<string, RangeOverride>; used: Record<string, UsedRange> } {
  const overrides: Record<string, RangeOverride> = {};
  const used: Record<string, UsedRange> = {};
  for (const node of rangedItems(definition)) {
    const row =
      siteRanges.length > 0
        ? chooseReferenceRange(siteRanges, {
            analyte: itemAnalyte(node),
            sex: labSex(patient.gender),
            ageYears: patient.ageYears,
            sampleDate: patient.sampleDate,
          })
        : null;
    if (row) {
      overrides[node.name] = { lower: row.lower, upper: row.upper, unit: row.unit };
      used[node.name] = { lower: row.lower, upper: row.upper, unit: row.unit, source: 'site', rangeId: row.id };
      continue;
    }
    const own = referenceRange(node.option, patient.gender);
    if (own) {
      const unit = unitsOf(node.option)[0] ?? null;
      used[node.name] = { lower: own.min, upper: own.max, unit, source: 'item', rangeId: null };
    }
  }
  return { overrides, used };
}

/** The site overrides among stored used ranges: a later reader (system queries, the form page) judges by them. */
export function overridesFromUsed(stored: Readonly<Record<string, unknown>> | null | undefined) {
  const out: Record<string, RangeOverride> = {};
  for (const [name, raw] of Object.entries(stored ?? {})) {
    const r = raw as Partial<UsedRange> | null;
    if (r && r.source === 'site') out[name] = { lower: r.lower ?? null, upper: r.upper ?? null, unit: r.unit ?? null };
  }
  return out;
}
