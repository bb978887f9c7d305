import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  convertValue,
  formatByPattern,
  formatCalculated,
  formatItemValue,
  parseConverterRule,
  roundDecimal,
  sanitizeRealInput,
  ValueConversionError,
} from './value-converter.js';

describe('value converter (forms §5)', () => {
  it.each([
    ['CONV-03: precision R rounds half away from zero', '2.345', 'precision:2:R', '2.35'],
    ['CONV-03: precision R on a binary-unfriendly value', 1.005, 'precision:2:R', '1.01'],
    ['CONV-03: precision R negative', '-2.345', 'precision,2,R', '-2.35'],
    ['CONV-03: precision U rounds up (away from zero)', '2.341', 'precision:2:U', '2.35'],
    ['CONV-03: precision U negative', '-2.341', 'precision:2:U', '-2.35'],
    ['CONV-03: precision D rounds down (toward zero)', '2.349', 'precision:2:D', '2.34'],
    ['CONV-03: precision pads', '3', 'precision:1:R', '3.0'],
    ['CONV-03: precision 0', '2.5', 'precision:0:R', '3'],
    ['CONV-03: mode defaults to R', '2.25', 'precision:1', '2.3'],
  ])('%s', (_title, value, rule, expected) => {
    expect(convertValue(value, rule)).toBe(expected);
  });

  it('CONV-01: decimal scales percent-style to 2 places, rounding the second place', () => {
    expect(convertValue(0.1234, 'decimal')).toBe('12.34');
    expect(convertValue('0.12345', 'decimal')).toBe('12.35');
    expect(convertValue('1', 'decimal')).toBe('100.00');
  });

  it('CONV-02: interval puts dashes between digits, ignoring non-digits', () => {
    expect(convertValue('20240301', 'interval')).toBe('2-0-2-4-0-3-0-1');
    expect(convertValue('12a3', 'interval')).toBe('1-2-3');
  });

  it.each(['percent', 'round', '', 'precision:x:R', 'precision:2:Q', 'precision:11:R'])(
    'CONV-04: rule %j is an error',
    (rule) => {
      expect(() => parseConverterRule(rule)).toThrow(ValueConversionError);
      expect(() => convertValue('1', rule)).toThrow(ValueConversionError);
    },
  );

  it('CONV-04: a non-number is an error for numeric rules', () => {
    expect(() => convertValue('abc', 'precision:2:R')).toThrow(ValueConversionError);
  });

  it('WID-13/WID-14: format by prefix and bracketed pattern', () => {
    expect(formatByPattern('13812345678', 'TEL[###-####-####]')).toBe('TEL138-1234-5678');
    expect(formatByPattern('TEL138-1234-5678', 'TEL[###-####-####]')).toBe('TEL138-1234-5678');
    expect(formatByPattern('1381', 'TEL[###-####-####]')).toBe('TEL138-1');
    expect(formatByPattern('abc', 'no pattern')).toBe('abc');
  });

  it('WID-12: a real input keeps only digits and one decimal point', () => {
    expect(sanitizeRealInput('12.3.4')).toBe('12.34');
    expect(sanitizeRealInput('-1a2,5.0')).toBe('125.0');
    expect(sanitizeRealInput('.5')).toBe('.5');
  });

  it('WID-13/WID-14: int and real items are formatted by their format; inputs by their pattern', () => {
    expect(formatItemValue('real', 'precision:1:R', '36.55')).toBe('36.6');
    expect(formatItemValue('int', 'interval', '2024')).toBe('2-0-2-4');
    expect(formatItemValue('real', 'precision:1:R', 'abc')).toBe('abc');
    expect(formatItemValue('input', 'NO.[###-###]', '123456')).toBe('NO.123-456');
    expect(formatItemValue('textarea', 'x[#]', '1')).toBe('1');
    expect(formatItemValue('real', undefined, '1.234')).toBe('1.234');
  });

  it('calculated numbers carry no float noise', () => {
    expect(formatCalculated(0.1 + 0.2)).toBe('0.3');
    expect(formatCalculated(22.857142857142858)).toBe('22.8571428571');
    expect(formatCalculated(-0)).toBe('0');
  });
});

describe('value converter (properties)', () => {
  const decimalText = fc
    .tuple(fc.boolean(), fc.stringMatching(/^\d{1,8}$/), fc.stringMatching(/^\d{0,8}$/))
    .map(([neg, i, f]) => `${neg ? '-' : ''}${i}${f ? `.${f}` : ''}`);

  it('CONV-03: rounds 70000000.195 to 2 places exactly, on the decimal digits', () => {
    expect(roundDecimal('70000000.195', 2, 'R')).toBe('70000000.20');
    expect(roundDecimal('70000000.195', 2, 'U')).toBe('70000000.20');
    expect(roundDecimal('70000000.195', 2, 'D')).toBe('70000000.19');
  });

  it('CONV-03: R, U and D keep exactly n decimals, stay within one unit of the last place, and bracket the value', () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 0, max: 6 }), (text, digits) => {
        const x = Number(text);
        const unit = 10 ** -digits;
        // The checks compare binary floats; allow their rounding error at this magnitude.
        const slack = Math.max(1e-9, Math.abs(x) * Number.EPSILON * 8);
        const results = (['R', 'U', 'D'] as const).map((mode) => roundDecimal(text, digits, mode));
        for (const r of results) {
          expect(r.split('.')[1]?.length ?? 0).toBe(digits);
          expect(Math.abs(Number(r) - x)).toBeLessThanOrEqual(unit + slack);
        }
        const [round, up, down] = results.map(Number) as [number, number, number];
        expect(Math.abs(up)).toBeGreaterThanOrEqual(Math.abs(x) - slack);
        expect(Math.abs(down)).toBeLessThanOrEqual(Math.abs(x) + slack);
        expect(Math.abs(round - x)).toBeLessThanOrEqual(unit / 2 + slack);
      }),
    );
  });

  it('CONV-04: any rule text either parses or throws ValueConversionError, never anything else', () => {
    fc.assert(
      fc.property(fc.string(), fc.oneof(fc.string(), fc.double().map(String)), (rule, value) => {
        try {
          const out = convertValue(value, rule);
          expect(typeof out).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(ValueConversionError);
        }
      }),
    );
  });
});
