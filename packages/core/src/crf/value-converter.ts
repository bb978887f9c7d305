/**
 * The value converter of forms §5: decimal, interval and precision (R round, U up, D down); any
 * other rule is an error. Rounding works on the decimal digits of the value as written, never on
 * binary floating point, so 1.005 rounds to 1.01 as a nurse expects and not to 1.00.
 */
export type RoundingMode = 'R' | 'U' | 'D';
export type ConverterRule =
  { kind: 'decimal' } | { kind: 'interval' } | { kind: 'precision'; digits: number; mode: RoundingMode };

export class ValueConversionError extends Error {
  override readonly name = 'ValueConversionError';
}

/** Reads "decimal", "interval" or "precision:2:R" (commas also separate; the mode defaults to R). */
export function parseConverterRule(text: string): ConverterRule {
  const [kind = '', digitsText, modeText] = text
    .trim()
    .split(/[:,]/)
    .map((part) => part.trim());
  switch (kind.toLowerCase()) {
    case 'decimal':
      return { kind: 'decimal' };
    case 'interval':
      return { kind: 'interval' };
    case 'precision': {
      const digits = Number(digitsText);
      if (!Number.isInteger(digits) || digits < 0 || digits > 10) {
        throw new ValueConversionError(`精度规则的小数位数必须是 0 到 10 的整数：${text}`);
      }
      const mode = (modeText ?? 'R').toUpperCase();
      if (mode !== 'R' && mode !== 'U' && mode !== 'D') {
        throw new ValueConversionError(`未知的取舍方式 ${modeText}（应为 R、U 或 D）`);
      }
      return { kind: 'precision', digits, mode };
    }
    default:
      throw new ValueConversionError(`未知的转换规则：${text}`);
  }
}

const PLAIN = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** A number's shortest decimal text without exponent ("1e-7" becomes "0.0000001"). */
export function toPlainDecimal(value: number | string): string | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = /^([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const sign = m[1] === '-' ? '-' : '';
  const [intPart = '', fracPart = ''] = m[2]!.split('.');
  const exponent = Number(m[3] ?? 0);
  if (Math.abs(exponent) > 400) return null;
  let digits = intPart + fracPart;
  let point = intPart.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const int = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const frac = digits.slice(point).replace(/0+$/, '');
  return `${sign}${int}${frac ? `.${frac}` : ''}`;
}

/** Rounds decimal text to exactly `digits` decimals. U and D are away from and toward zero. */
export function roundDecimal(value: number | string, digits: number, mode: RoundingMode): string {
  const plain = toPlainDecimal(value);
  if (plain === null) throw new ValueConversionError(`不是有效的数字：${String(value)}`);
  const m = PLAIN.exec(plain)!;
  const negative = m[1] === '-';
  const int = m[2] || '0';
  const frac = m[3] ?? '';
  const kept = frac.slice(0, digits).padEnd(digits, '0');
  const dropped = frac.slice(digits);
  let scaled = BigInt(int + kept);
  const bump = mode === 'R' ? (dropped[0] ?? '0') >= '5' : mode === 'U' ? /[1-9]/.test(dropped) : false;
  if (bump) scaled += 1n;
  let text = scaled.toString().padStart(digits + 1, '0');
  if (digits > 0) text = `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  const isZero = scaled === 0n;
  return negative && !isZero ? `-${text}` : text;
}

/** The same rounding as a number, for expressions (round, roundup, rounddown). */
export function roundNumber(value: number, digits: number, mode: RoundingMode): number {
  return Number(roundDecimal(value, digits, mode));
}

export function convertValue(value: string | number, rule: ConverterRule | string): string {
  const parsed = typeof rule === 'string' ? parseConverterRule(rule) : rule;
  switch (parsed.kind) {
    case 'decimal': {
      // Percent-style: a fraction typed as 0.1234 shows as 12.34.
      const plain = toPlainDecimal(value);
      if (plain === null) throw new ValueConversionError(`不是有效的数字：${String(value)}`);
      return roundDecimal(shiftPoint(plain, 2), 2, 'R');
    }
    case 'interval': {
      const digits = String(value).replace(/\D/g, '');
      return digits.split('').join('-');
    }
    case 'precision':
      return roundDecimal(value, parsed.digits, parsed.mode);
  }
}

function shiftPoint(plain: string, places: number): string {
  const m = PLAIN.exec(plain)!;
  const frac = (m[3] ?? '').padEnd(places, '0');
  return `${m[1]}${m[2] || '0'}${frac.slice(0, places)}.${frac.slice(places) || '0'}`;
}

/** A calculated number as stored text: at most 10 decimals, no float noise such as 0.30000000000000004. */
export function formatCalculated(value: number): string {
  return toPlainDecimal(roundDecimal(value, 10, 'R')) ?? String(value);
}

/**
 * Input items with a format "prefix[pattern]" (forms §5): the entered characters fill the
 * pattern's # (or 0, 9) slots in order, other pattern characters are kept as written, and the
 * prefix leads. "TEL[###-####-####]" makes 13812345678 read TEL138-1234-5678.
 */
export function formatByPattern(value: string, format: string): string {
  const m = /^([^[]*)\[([^\]]*)\]$/.exec(format);
  if (!m) return value;
  const prefix = m[1]!;
  const pattern = m[2]!;
  const body = value.startsWith(prefix) ? value.slice(prefix.length) : value;
  const chars = [...body.replace(/[^\p{L}\p{N}]/gu, '')];
  let out = '';
  let next = 0;
  for (const slot of pattern) {
    if (next >= chars.length) break;
    if (slot === '#' || slot === '0' || slot === '9') {
      out += chars[next];
      next += 1;
    } else {
      out += slot;
    }
  }
  return prefix + out + chars.slice(next).join('');
}

/** forms §5: a real input keeps only digits and one decimal point. */
export function sanitizeRealInput(text: string): string {
  const kept = text.replace(/[^\d.]/g, '');
  const point = kept.indexOf('.');
  return point < 0 ? kept : kept.slice(0, point + 1) + kept.slice(point + 1).replace(/\./g, '');
}

/**
 * What an input shows after the user leaves it (forms §5): int, real and number items with a format
 * are converted by it; input items with a "prefix[pattern]" format are reformatted. A value the rule
 * cannot convert is left as typed, for the field rules to flag.
 */
export function formatItemValue(type: string, format: string | undefined, text: string): string {
  if (!format || text === '') return text;
  if (type === 'int' || type === 'real' || type === 'number') {
    try {
      return convertValue(text, format);
    } catch {
      return text;
    }
  }
  if (type === 'input' && format.includes('[')) return formatByPattern(text, format);
  return text;
}
