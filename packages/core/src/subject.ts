import { MOBILE_PATTERN } from './account.js';
import { MSG } from './messages.js';

/** platform §5, §9: a birth date may not be later than today minus 10 days. */
export const BIRTH_MIN_AGE_DAYS = 10;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The latest allowed birth date (YYYY-MM-DD) for a given today (YYYY-MM-DD). */
export function latestBirthDate(today: string): string {
  const t = Date.parse(`${today}T00:00:00Z`);
  return new Date(t - BIRTH_MIN_AGE_DAYS * DAY_MS).toISOString().slice(0, 10);
}

/** Whole years between a birth date and today (both YYYY-MM-DD); null without a valid birth date. */
export function ageFromBirth(birth: string | null | undefined, today: string): number | null {
  if (!birth || !/^\d{4}-\d{2}-\d{2}$/.test(birth)) return null;
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number];
  let age = ty - by;
  if (tm < bm || (tm === bm && td < bd)) age -= 1;
  return age < 0 ? null : age;
}

export interface SubjectFields {
  identificationCode?: string | null;
  subjectName?: string | null;
  gender?: number | null;
  birth?: string | null;
  mobile?: string | null;
  diseaseCode?: string | null;
}

export interface BaseField {
  name: string;
  required: boolean;
  display: boolean;
}

/**
 * The patient rules of platform §5, the same in the dialog and on the server: a map of field
 * name to the first broken rule's message.
 */
export function subjectFieldErrors(
  input: SubjectFields,
  opts: { baseConfig: readonly BaseField[]; today: string; serialNumbers: boolean; diseaseCodes: readonly string[] },
): Record<string, string> {
  const errors: Record<string, string> = {};
  const required = (name: string) => opts.baseConfig.find((f) => f.name === name)?.required ?? false;
  const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === '';
  if (!opts.serialNumbers && blank(input.identificationCode)) errors.identificationCode = MSG.codeRequired;
  if (blank(input.subjectName)) errors.subjectName = MSG.subjectNameRequired;
  if (input.gender !== 0 && input.gender !== 1) errors.gender = MSG.genderRequired;
  if (blank(input.diseaseCode) || !opts.diseaseCodes.includes(String(input.diseaseCode))) errors.diseaseCode = MSG.diseaseRequired;
  if (!blank(input.mobile) && !MOBILE_PATTERN.test(String(input.mobile))) errors.mobile = MSG.subjectMobile;
  else if (blank(input.mobile) && required('mobile')) errors.mobile = MSG.subjectMobile;
  if (!blank(input.birth)) {
    const birth = String(input.birth);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || Number.isNaN(Date.parse(`${birth}T00:00:00Z`))) errors.birth = '请输入正确的出生日期';
    else if (birth > latestBirthDate(opts.today)) errors.birth = MSG.birthTooLate;
  } else if (required('birth')) errors.birth = '请选择出生日期';
  return errors;
}
