import { describe, expect, it } from 'vitest';
import { divisionCodes, isDivisionCode } from './division-codes.js';

describe('administrative division code table (GB/T 2260, 1980 to 2025)', () => {
  const codes = divisionCodes();

  it('holds only six-digit codes, sorted, without duplicates', () => {
    expect(codes.length).toBeGreaterThan(7000);
    expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(codes);
  });

  it('holds no province-level code except the Hong Kong, Macao and Taiwan residence-permit codes', () => {
    expect(codes.filter((code) => code.endsWith('0000'))).toEqual(['810000', '820000', '830000']);
  });

  it('covers every province of the resident ID and no other first two digits', () => {
    const provinces = [...new Set(codes.map((code) => code.slice(0, 2)))];
    expect(provinces).toEqual([
      ...['11', '12', '13', '14', '15', '21', '22', '23', '31', '32', '33', '34', '35', '36', '37'],
      ...['41', '42', '43', '44', '45', '46', '50', '51', '52', '53', '54', '61', '62', '63', '64', '65'],
      ...['81', '82', '83'],
    ]);
  });

  it('knows current, abolished and first-edition codes, and nothing else', () => {
    expect(isDivisionCode('110105')).toBe(true);
    expect(isDivisionCode('110103')).toBe(true);
    expect(isDivisionCode('110201')).toBe(true);
    expect(isDivisionCode('000000')).toBe(false);
    expect(isDivisionCode('999999')).toBe(false);
    expect(isDivisionCode('11010')).toBe(false);
    expect(isDivisionCode('1101050')).toBe(false);
  });
});
