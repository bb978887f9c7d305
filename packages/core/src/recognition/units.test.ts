import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabRow } from './lab-report.js';
import { CANONICAL_UNITS, normaliseUnit, canonicalUnit } from './units.js';

/** Spellings of units met on reports (and in the OCR's reading of them), each with its one canonical spelling. */
const SPELLINGS: readonly (readonly [string, string])[] = [
  ['10^9/L', '10^9/L'],
  ['10*9/L', '10^9/L'],
  ['10**9/L', '10^9/L'],
  ['×10⁹/L', '10^9/L'],
  ['×10^9/L', '10^9/L'],
  ['x10^9/L', '10^9/L'],
  ['*10^9/L', '10^9/L'],
  ['10E9/L', '10^9/L'],
  ['10e9/L', '10^9/L'],
  ['10~9/L', '10^9/L'],
  ['10-9/L', '10^9/L'],
  ['10⁹/L', '10^9/L'],
  ['109/L', '10^9/L'],
  ['10^9/l', '10^9/L'],
  ['10^9 /L', '10^9/L'],
  ['G/L', '10^9/L'],
  ['10^12/L', '10^12/L'],
  ['10*12/L', '10^12/L'],
  ['×10¹²/L', '10^12/L'],
  ['1012/L', '10^12/L'],
  ['T/L', '10^12/L'],
  ['mmol/L', 'mmol/L'],
  ['mmol/l', 'mmol/L'],
  ['MMOL/L', 'mmol/L'],
  ['mmo1/L', 'mmol/L'],
  ['mmoI/L', 'mmol/L'],
  ['mmol/1', 'mmol/L'],
  ['rnmol/L', 'mmol/L'],
  ['umol/L', 'μmol/L'],
  ['μmol/l', 'μmol/L'],
  ['µmol/L', 'μmol/L'],
  ['μumol/L', 'μmol/L'],
  ['umo1/L', 'μmol/L'],
  ['从mo1/L', 'μmol/L'],
  ['U/1', 'U/L'],
  ['nmol/L', 'nmol/L'],
  ['g/L', 'g/L'],
  ['g/l', 'g/L'],
  ['mg/L', 'mg/L'],
  ['mg/dl', 'mg/dL'],
  ['ug/L', 'μg/L'],
  ['ng/ml', 'ng/mL'],
  ['pg/ml', 'pg/mL'],
  ['U/L', 'U/L'],
  ['u/l', 'U/L'],
  ['IU/L', 'IU/L'],
  ['iu/ml', 'IU/mL'],
  ['mIU/ml', 'mIU/mL'],
  ['uIU/ml', 'μIU/mL'],
  ['%', '%'],
  ['％', '%'],
  ['fl', 'fL'],
  ['FL', 'fL'],
  ['pg', 'pg'],
  ['PG', 'pg'],
  ['/HP', '/HP'],
  ['/hp', '/HP'],
  ['个/HP', '/HP'],
  ['/HPF', '/HP'],
  ['/LP', '/LP'],
  ['个/LP', '/LP'],
  ['/ul', '/μL'],
  ['个/μl', '/μL'],
  ['个/uL', '/μL'],
  ['mm/h', 'mm/h'],
  ['mmHg', 'mmHg'],
  ['mmhg', 'mmHg'],
  ['sec', 's'],
  ['秒', 's'],
  ['mOsm/kg', 'mOsm/kg'],
  ['10^3/μL', '10^3/μL'],
  ['10*3/ul', '10^3/μL'],
  ['L/L', 'L/L'],
  ['mmol/mol', 'mmol/mol'],
  ['mEq/L', 'mEq/L'],
  ['mL/min/1.73m²', 'mL/min/1.73m²'],
  ['ml/min/1.73m2', 'mL/min/1.73m²'],
];

describe('units: one spelling each', () => {
  it.each(SPELLINGS)('%s is %s', (spelling, canonical) => {
    expect(normaliseUnit(spelling)).toBe(canonical);
    expect(canonicalUnit(spelling)).toBe(canonical);
  });

  it('leaves what is not a unit alone: codes, flags, values and words are no unit', () => {
    for (const text of [
      'A/G',
      'H',
      'L',
      'K',
      'WBC',
      '6.52',
      '3.5-9.5',
      '10-12',
      '10.5',
      '100',
      '1012',
      '阴性',
      '白细胞',
      '',
    ]) {
      expect(canonicalUnit(text)).toBeUndefined();
    }
    expect(normaliseUnit('')).toBe('');
    expect(normaliseUnit('  ')).toBe('');
  });

  it('every canonical spelling is its own', () => {
    for (const unit of CANONICAL_UNITS) {
      expect(normaliseUnit(unit)).toBe(unit);
      expect(canonicalUnit(unit)).toBe(unit);
    }
    for (const [, canonical] of SPELLINGS) expect(CANONICAL_UNITS).toContain(canonical);
  });

  it('normaliseUnit is idempotent on any text', () => {
    const unitish = fc.string({
      unit: fc.constantFrom(
        ...'10^*×xX9²⁹¹/lL1IiμµumMgGnpdDfF%个HhPp~-E eOoS秒sckKT'.split(''),
        '10',
        '/L',
        'mol',
        'mo1',
      ),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.oneof(unitish, fc.string({ maxLength: 12 })), (text) => {
        const once = normaliseUnit(text);
        expect(normaliseUnit(once)).toBe(once);
        const known = canonicalUnit(text);
        if (known !== undefined) expect(known).toBe(once);
      }),
    );
  });

  it('a row answers its unit in the canonical spelling, whatever the spelling printed or read', () => {
    for (const [spelling, canonical] of SPELLINGS) {
      const row = parseLabRow(`白细胞计数 WBC 6.52 ${spelling} 3.5-9.5`);
      expect({ spelling, unit: row?.unit }).toEqual({ spelling, unit: canonical });
    }
  });
});
