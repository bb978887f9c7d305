import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exampleCrf } from './crf/example-crf.js';
import { exportVariables, randomShiftDays, shiftDate, statName, uniqueNames } from './export.js';

describe('export variables and date shifting', () => {
  it('SRCH-02: every variable name is one SPSS, Stata and R accept, unique in the form', () => {
    const vars = exportVariables(exampleCrf());
    expect(vars.length).toBeGreaterThan(0);
    for (const v of vars) expect(v.name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,31}$/);
    expect(new Set(vars.map((v) => v.name.toLowerCase())).size).toBe(vars.length);
    expect(statName('1年龄')).toBe('v1');
    expect(statName('年龄')).toBe('v');
    expect(uniqueNames(['a', 'A', 'a'])).toEqual(['a', 'A_2', 'a_3']);
  });

  it('SRCH-02: a shifted date moves by the offset, keeps its time, and partial dates are withheld', () => {
    expect(shiftDate('2024-03-01', -1)).toBe('2024-02-29');
    expect(shiftDate('2024-12-31 08:30:00', 1)).toBe('2025-01-01 08:30:00');
    expect(shiftDate('2024-UK-UK', 3)).toBeNull();
    expect(shiftDate('2024-05', 3)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (max, r) => {
        const d = randomShiftDays(max, () => r);
        return d !== 0 && Math.abs(d) <= max;
      }),
    );
  });
});
