import { isMobile } from './account.js';
import { isResidentIdNumber } from './crf/field-rules.js';
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
  /** 身份证号 (a mainland resident ID number). */
  idNumber?: string | null;
  diseaseCode?: string | null;
}

/** A patient's own fields (SubjectFields), in the order the audit trail lists them (enrolment text, edit rows). */
export const SUBJECT_FIELD_NAMES = [
  'identificationCode',
  'subjectName',
  'gender',
  'birth',
  'mobile',
  'idNumber',
  'diseaseCode',
] as const satisfies ReadonlyArray<keyof SubjectFields>;

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
  if (blank(input.diseaseCode) || !opts.diseaseCodes.includes(String(input.diseaseCode))) {
    errors.diseaseCode = MSG.diseaseRequired;
  }
  if (!blank(input.mobile) && !isMobile(String(input.mobile))) errors.mobile = MSG.subjectMobile;
  else if (blank(input.mobile) && required('mobile')) errors.mobile = MSG.subjectMobile;
  if (!blank(input.idNumber) && !isResidentIdNumber(normalizeIdNumber(String(input.idNumber)))) {
    errors.idNumber = MSG.subjectIdNumber;
  } else if (blank(input.idNumber) && required('idNumber')) errors.idNumber = MSG.subjectIdNumberRequired;
  if (!blank(input.birth)) {
    const birth = String(input.birth);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || Number.isNaN(Date.parse(`${birth}T00:00:00Z`))) {
      errors.birth = '请输入正确的出生日期';
    } else if (birth > latestBirthDate(opts.today)) errors.birth = MSG.birthTooLate;
  } else if (required('birth')) errors.birth = '请选择出生日期';
  return errors;
}

/** The stored form of an ID number: no surrounding spaces, check character X upper-case. */
export function normalizeIdNumber(value: string): string {
  return value.trim().toUpperCase();
}

/**
 * PIPL masking of patient identifiers for members without the identifiers permission. The same
 * rules on server and web, so a masked value sent back can be recognised as unchanged.
 */
const STAR = '*';

function keepEnds(value: string, head: number, tail: number): string {
  const chars = Array.from(value);
  // Too short to keep both ends without giving most of it away: hide it all.
  if (chars.length <= head + tail) return STAR.repeat(chars.length);
  return (
    chars.slice(0, head).join('') + STAR.repeat(chars.length - head - tail) + chars.slice(chars.length - tail).join('')
  );
}

/** `110105********002X`: region code and the last four kept. */
export function maskIdNumber(value: string): string {
  return keepEnds(value, 6, 4);
}

/** `138****0002`: carrier prefix and the last four kept. */
export function maskMobile(value: string): string {
  return keepEnds(value, 3, 4);
}

/** `张*`, `欧阳娜娜` → `欧***`: the first character kept (the family name, enough to address a patient). */
export function maskName(value: string): string {
  const chars = Array.from(value.trim());
  if (chars.length <= 1) return STAR.repeat(chars.length);
  return chars[0]! + STAR.repeat(chars.length - 1);
}

/** `1960-**-**`: the year only (age in years stays available; the exact date identifies). */
export function maskBirth(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value.slice(0, 4)}-**-**` : STAR.repeat(value.length);
}

export const SUBJECT_IDENTIFIER_FIELDS = ['subjectName', 'birth', 'mobile', 'idNumber'] as const;
export type SubjectIdentifierField = (typeof SUBJECT_IDENTIFIER_FIELDS)[number];

const MASKS: Record<SubjectIdentifierField, (value: string) => string> = {
  subjectName: maskName,
  birth: maskBirth,
  mobile: maskMobile,
  idNumber: maskIdNumber,
};

export function maskIdentifier(field: SubjectIdentifierField, value: string | null | undefined): string | null {
  return value === null || value === undefined || value === '' ? (value ?? null) : MASKS[field](value);
}

/**
 * Whether a value sent back in an edit is the mask of what is stored, i.e. untouched by the user.
 * A mask always contains a star, which no valid name, date, mobile or ID number does.
 */
export function isMaskOf(field: SubjectIdentifierField, sent: unknown, stored: string | null | undefined): boolean {
  return typeof sent === 'string' && sent.includes(STAR) && Boolean(stored) && maskIdentifier(field, stored) === sent;
}
