import type { ItemOption } from './crf-definition.schema.js';
import { toNumber, unitsOf } from './options.js';
import { roundConverted, unitFactor } from './units.js';

/**
 * The spec encodes gender two ways: in the form context 1 is female (forms §3), in the patient
 * entity 1 is male and 0 female (platform §3). The engine works with 'male' | 'female' only;
 * storage keeps the patient encoding (1 male, 0 female) because that is where gender is entered
 * and stored; the converters below are the only places the numbers appear.
 */
export type Gender = 'male' | 'female';

export const PATIENT_GENDER = { male: 1, female: 0 } as const;
export const FORM_CONTEXT_GENDER = { male: 0, female: 1 } as const;

const toCode = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : null;
  return n === 0 || n === 1 ? n : null;
};

export function genderFromPatient(code: unknown): Gender | null {
  const n = toCode(code);
  return n === null ? null : n === PATIENT_GENDER.male ? 'male' : 'female';
}

export function genderToPatient(gender: Gender): 0 | 1 {
  return PATIENT_GENDER[gender];
}

export function genderFromFormContext(code: unknown): Gender | null {
  const n = toCode(code);
  return n === null ? null : n === FORM_CONTEXT_GENDER.female ? 'female' : 'male';
}

export function genderToFormContext(gender: Gender): 0 | 1 {
  return FORM_CONTEXT_GENDER[gender];
}

export interface ReferenceRange {
  min: number | null;
  max: number | null;
}

/**
 * The range for the subject's gender, in `unit`. The bounds are written in the item's first unit
 * (the one a unit selector starts on); a value entered in another unit of the selector is judged
 * against the bounds converted to that unit (units.ts). When no conversion is defined there is no
 * range: no indicator is better than a wrong one.
 */
export function referenceRange(option: ItemOption, gender: Gender | null, unit?: string | null): ReferenceRange | null {
  if (gender === null) return null;
  const min = toNumber(gender === 'male' ? option.refValueMaleMin : option.refValueFemaleMin);
  const max = toNumber(gender === 'male' ? option.refValueMaleMax : option.refValueFemaleMax);
  if (min === null && max === null) return null;
  const base = unitsOf(option)[0];
  if (!unit || base === undefined) return { min, max };
  const factor = unitFactor(base, unit, toNumber(option.molarMass));
  if (factor === null) return null;
  const scale = (n: number | null) => (n === null ? null : roundConverted(n * factor));
  return { min: scale(min), max: scale(max) };
}

export function hasReferenceRange(option: ItemOption): boolean {
  return [option.refValueMaleMin, option.refValueMaleMax, option.refValueFemaleMin, option.refValueFemaleMax].some(
    (v) => toNumber(v) !== null,
  );
}

/**
 * forms §4: low or high when the value lies outside the range for the subject's gender; bounds are
 * inside. `unit` is the unit the value was entered in (the first unit when absent).
 */
export function rangeIndicator(
  value: unknown,
  option: ItemOption,
  gender: Gender | null,
  unit?: string | null,
): 'low' | 'high' | null {
  const range = referenceRange(option, gender, unit);
  if (!range) return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? toNumber(value) : null;
  if (n === null) return null;
  if (range.min !== null && n < range.min) return 'low';
  if (range.max !== null && n > range.max) return 'high';
  return null;
}
