import { isMobile } from '../account.js';
import { isChoiceType, type CrfNode } from './crf-definition.schema.js';
import { CRF_MSG } from './crf-messages.js';
import { isDivisionCode } from './division-codes.js';
import { hasChoices, isOn, toNumber } from './options.js';
import { itemTypeOf } from './item-types/registry.js';

/** The form-field helper of forms §5. */
export type FieldType = 'string' | 'int' | 'float' | 'email' | 'phone' | 'idcard';

export interface FieldRule {
  required?: boolean;
  hasOptions?: boolean;
  type?: FieldType;
  /** float only: at most this many decimals. */
  precision?: number | null;
  /** int and float: numeric bounds; other types: length bounds. */
  min?: number | null;
  max?: number | null;
  pattern?: string | null;
  /** Replaces every message of this field (forms §5). */
  errorMsg?: string | null;
}

/** Rules run on blur and on change (forms §5). */
export const FIELD_RULE_TRIGGERS = ['blur', 'change'] as const;

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** GB 11643-1999: weights of the first 17 digits and the check character for each remainder mod 11. */
const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

export function residentIdCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i += 1) sum += Number(first17[i]) * ID_WEIGHTS[i]!;
  return ID_CHECK[sum % 11]!;
}

/** A first-generation (15-digit) number as the 18-digit one it became: century 19 inserted, check character added. */
export function eighteenDigitId(value: string): string | null {
  if (!/^\d{15}$/.test(value)) return null;
  const first17 = `${value.slice(0, 6)}19${value.slice(6)}`;
  return first17 + residentIdCheckChar(first17);
}

/** The birth date an 18-digit number carries, when it is a real calendar date (YYYY-MM-DD), else null. */
export function residentIdBirthDate(value: string): string | null {
  const y = Number(value.slice(6, 10));
  const m = Number(value.slice(10, 12));
  const d = Number(value.slice(12, 14));
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${value.slice(6, 10)}-${value.slice(10, 12)}-${value.slice(12, 14)}`;
}

/**
 * Mainland resident ID (GB 11643-1999): 18 characters with a valid check character (x and X are the
 * same), a region code (the first six digits) that is or was a county- or prefecture-level code of
 * GB/T 2260 (division-codes.ts: a number keeps the code of where and when it was first issued, so
 * abolished codes count), and a real birth date from 1900 up to today; a 15-digit first-generation
 * number is judged as the 18-digit number it converts to. `today` is YYYY-MM-DD (UTC by default).
 */
export function isResidentIdNumber(value: string, today: string = new Date().toISOString().slice(0, 10)): boolean {
  const id = /^\d{15}$/.test(value) ? eighteenDigitId(value)! : value;
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  if (residentIdCheckChar(id.slice(0, 17)) !== id[17]!.toUpperCase()) return false;
  if (!isDivisionCode(id.slice(0, 6))) return false;
  const birth = residentIdBirthDate(id);
  return birth !== null && birth >= '1900-01-01' && birth <= today;
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  // An upload list stored as JSON text with no entry is as empty as no value (forms §3 image/video lists).
  if (typeof value === 'string') return value.trim() === '' || value.trim() === '[]';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

const patternCache = new Map<string, RegExp | null>();
/** A validationEx pattern; null when it does not compile (the linter refuses those at upload). */
export function compilePattern(source: string): RegExp | null {
  if (!patternCache.has(source)) {
    let compiled: RegExp | null;
    try {
      compiled = new RegExp(source, 'u');
    } catch {
      try {
        compiled = new RegExp(source);
      } catch {
        compiled = null;
      }
    }
    patternCache.set(source, compiled);
  }
  return patternCache.get(source)!;
}

function firstError(value: unknown, rule: FieldRule): string | null {
  if (isEmptyValue(value)) {
    if (!rule.required) return null;
    return rule.hasOptions ? CRF_MSG.requiredChoice : CRF_MSG.requiredInput;
  }
  if (Array.isArray(value) || typeof value === 'object') return null;
  const text = String(value).trim();
  const type = rule.type ?? 'string';
  const min = rule.min ?? null;
  const max = rule.max ?? null;
  switch (type) {
    case 'int':
    case 'float': {
      if (type === 'int' && !INT.test(text)) return CRF_MSG.notInteger;
      if (type === 'float') {
        if (!FLOAT.test(text)) return CRF_MSG.notNumber;
        const decimals = text.split('.')[1]?.length ?? 0;
        if (rule.precision != null && decimals > rule.precision) return CRF_MSG.tooManyDecimals(rule.precision);
      }
      const n = Number(text);
      if (min !== null && n < min) return CRF_MSG.belowMin(min);
      if (max !== null && n > max) return CRF_MSG.aboveMax(max);
      break;
    }
    case 'email':
    case 'phone':
    case 'idcard':
    case 'string': {
      if (type === 'email' && !isEmail(text)) return CRF_MSG.email;
      if (type === 'phone' && !isMobile(text)) return CRF_MSG.phone;
      if (type === 'idcard' && !isResidentIdNumber(text)) return CRF_MSG.idcard;
      const length = [...text].length;
      if (min !== null && length < min) return CRF_MSG.tooShort(min);
      if (max !== null && length > max) return CRF_MSG.tooLong(max);
      break;
    }
  }
  if (rule.pattern) {
    const pattern = compilePattern(rule.pattern);
    if (pattern && !pattern.test(text)) return CRF_MSG.pattern;
  }
  return null;
}

/** The first broken rule's message (the field's errorMsg when it has one), or null. */
export function validateField(value: unknown, rule: FieldRule): string | null {
  const error = firstError(value, rule);
  return error !== null && rule.errorMsg ? rule.errorMsg : error;
}

/**
 * Per-item rules from type and option (forms §5; the details are ours): validate.type wins; int
 * is an integer, real and number are decimals with validate.precision; validate.min/max bound
 * numbers for those and length for text; dates, choices, uploads and rows have rules of their own.
 */
export function itemRule(node: CrfNode): FieldRule {
  const { option, type } = node;
  const choice = isChoiceType(type) || hasChoices(option);
  const typeBounds = itemTypeOf(type).bounded;
  const bounded = typeBounds !== false && !choice;
  const fieldType: FieldType = option.validate?.type ?? (typeBounds ? typeBounds.fieldType : 'string');
  const precision = toNumber(option.validate?.precision);
  return {
    required: isOn(option.required),
    hasOptions: choice,
    type: bounded ? fieldType : 'string',
    precision: precision !== null && Number.isInteger(precision) && precision >= 0 ? precision : null,
    min: bounded ? toNumber(option.validate?.min) : null,
    max: bounded ? toNumber(option.validate?.max) : null,
    pattern: option.validationEx && bounded ? option.validationEx : null,
    errorMsg: option.validationErrorMsg || null,
  };
}
