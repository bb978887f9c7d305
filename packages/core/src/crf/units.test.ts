import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition, ItemOption } from './crf-definition.schema.js';
import { evaluateForm } from './evaluate-form.js';
import { rangeIndicator, referenceRange } from './reference-range.js';
import { convertQuantity, itemUnit, normalizeUnit, selectedUnit, unitFactor, unitInfo } from './units.js';

describe('clinical unit conversion', () => {
  it.each<[number, string, string, number | null]>([
    [130, 'g/L', 'g/dL', 13],
    [13.5, 'g/dL', 'g/L', 135],
    [1, 'g/dL', 'mg/dL', 1000],
    [100, 'mg/dL', 'g/L', 1],
    [10, 'mg/L', 'mg/dL', 1],
    [5, 'mg/dL', 'mg/L', 50],
    [1, 'ng/mL', 'μg/L', 1],
    [70, 'μmol/L', 'mmol/L', 0.07],
    [3.5, '×10⁹/L', '×10³/μL', 3.5],
    [4.5, '×10¹²/L', '10^6/uL', 4.5],
    [40, 'U/L', 'μkat/L', 0.666666666667],
    [16, 'kPa', 'mmHg', 120.009852135],
    [70, 'kg', '斤', 140],
    [175, 'cm', 'm', 1.75],
  ])('%s %s is %s %s', (value, from, to, expected) => {
    expect(convertQuantity(value, from, to)).toBe(expected);
  });

  it('converts nothing across dimensions, nothing affine and no spelling it does not know', () => {
    expect(unitFactor('g/L', 'mmol/L')).toBeNull();
    expect(unitFactor('mg/dL', 'mmol/L', null)).toBeNull();
    expect(unitFactor('℃', '℉')).toBeNull();
    expect(unitFactor('kg', 'g/L')).toBeNull();
    expect(unitFactor('U/L', 'g/L', 180)).toBeNull();
    expect(unitFactor('g/L', '次/分')).toBeNull();
    // The same unit is the same unit, known or not.
    expect(unitFactor('次/分', ' 次/分 ')).toBe(1);
    expect(unitFactor('mg/dl', 'mg/dL')).toBe(1);
  });

  it('mass and substance concentration meet through a molar mass', () => {
    // Glucose 180.16 g/mol: 1 mmol/L = 18.016 mg/dL; creatinine 113.12 g/mol: 1 mg/dL = 88.4 μmol/L.
    expect(convertQuantity(1, 'mmol/L', 'mg/dL', 180.16)).toBe(18.016);
    expect(convertQuantity(126, 'mg/dL', 'mmol/L', 180.16)).toBe(6.99378330373);
    expect(convertQuantity(1, 'mg/dL', 'μmol/L', 113.12)).toBe(88.4016973126);
    expect(unitFactor('mg/dL', 'mmol/L', 0)).toBeNull();
    expect(unitFactor('mg/dL', 'mmol/L', -5)).toBeNull();
  });

  it('reads the spellings clinical forms use', () => {
    expect(normalizeUnit(' ×10⁹/L ')).toBe('10^9/l');
    expect(normalizeUnit('x10^9/L')).toBe('10^9/l');
    expect(normalizeUnit('µmol／L')).toBe('umol/l');
    expect(unitInfo('μmol/L')).toEqual(unitInfo('umol/l'));
    expect(unitInfo('10³/mm³')).toEqual(unitInfo('×10⁹/L'));
    expect(unitInfo('斤')).toEqual({ dimension: 'mass', scale: 500 });
  });

  const known = [
    'g/L',
    'g/dL',
    'mg/dL',
    'mg/L',
    'μg/mL',
    'ng/mL',
    'pg/mL',
    'mol/L',
    'mmol/L',
    'μmol/L',
    'nmol/L',
    '×10⁹/L',
    '×10¹²/L',
    '10^3/μL',
    'U/L',
    'μkat/L',
    'kg',
    'g',
    '斤',
    'cm',
    'mm',
    'kPa',
    'mmHg',
  ];
  const unit = fc.constantFrom(...known);
  const molar = fc.option(fc.double({ min: 1, max: 100_000, noNaN: true }), { nil: null });

  it('property: a conversion and its way back are inverse, and conversions compose', () => {
    fc.assert(
      fc.property(unit, unit, unit, molar, (a, b, c, m) => {
        const ab = unitFactor(a, b, m);
        const ba = unitFactor(b, a, m);
        expect(ab === null).toBe(ba === null);
        if (ab === null || ba === null) return;
        expect(ab).toBeGreaterThan(0);
        expect(ab * ba).toBeCloseTo(1, 9);
        const bc = unitFactor(b, c, m);
        const ac = unitFactor(a, c, m);
        if (bc !== null) {
          expect(ac).not.toBeNull();
          expect(Math.abs((ab * bc) / ac! - 1)).toBeLessThan(1e-9);
        }
      }),
    );
  });

  it('property: only units of one dimension convert without a molar mass', () => {
    fc.assert(
      fc.property(unit, unit, (a, b) => {
        const same = unitInfo(a)!.dimension === unitInfo(b)!.dimension;
        expect(unitFactor(a, b) !== null).toBe(same);
      }),
    );
  });
});

describe('reference ranges in the chosen unit (VIS-05)', () => {
  const hb: ItemOption = {
    units: 'g/L,g/dL',
    refValueMaleMin: 130,
    refValueMaleMax: 175,
    refValueFemaleMin: 115,
    refValueFemaleMax: 150,
  };

  it('VIS-05: a value entered in g/dL is judged against the g/L range converted to g/dL', () => {
    // The reported case: 13.5 g/dL is 135 g/L, normal for a man, not ↓偏低 against 130 g/L.
    expect(rangeIndicator('13.5', hb, 'male', 'g/dL')).toBeNull();
    expect(rangeIndicator('13', hb, 'male', 'g/dL')).toBeNull();
    expect(rangeIndicator('12.9', hb, 'male', 'g/dL')).toBe('low');
    expect(rangeIndicator('98.5', hb, 'male', 'g/dL')).toBe('high');
    expect(rangeIndicator('98.5', hb, 'male', 'g/L')).toBe('low');
    expect(rangeIndicator('98.5', hb, 'male')).toBe('low');
    expect(referenceRange(hb, 'female', 'g/dL')).toEqual({ min: 11.5, max: 15 });
    expect(referenceRange(hb, 'female', 'g/L')).toEqual({ min: 115, max: 150 });
  });

  it('VIS-05: no indicator when the chosen unit cannot be converted, never a wrong one', () => {
    const glucose: ItemOption = { units: 'mmol/L,mg/dL', refValueMaleMin: 3.9, refValueMaleMax: 6.1 };
    expect(rangeIndicator('126', glucose, 'male', 'mg/dL')).toBeNull();
    expect(referenceRange(glucose, 'male', 'mg/dL')).toBeNull();
    expect(rangeIndicator('7.0', glucose, 'male', 'mmol/L')).toBe('high');
    const withMolarMass = { ...glucose, molarMass: '180.16' };
    expect(referenceRange(withMolarMass, 'male', 'mg/dL')).toEqual({ min: 70.2624, max: 109.8976 });
    expect(rangeIndicator('126', withMolarMass, 'male', 'mg/dL')).toBe('high');
    expect(rangeIndicator('90', withMolarMass, 'male', 'mg/dL')).toBeNull();
    expect(rangeIndicator('36', { units: '℃,℉', refValueMaleMin: 36, refValueMaleMax: 37.3 }, 'male', '℉')).toBeNull();
  });

  it('property: converting the value and the range by the same factor keeps the verdict', () => {
    const options = fc.record({
      low: fc.integer({ min: 1, max: 500 }),
      width: fc.integer({ min: 1, max: 500 }),
      first: fc.constantFrom('g/L', 'mg/dL', 'μmol/L', '×10⁹/L', 'kPa'),
      other: fc.constantFrom('g/dL', 'mg/L', 'ng/mL', 'mmol/L', '10^3/μL', 'mmHg'),
    });
    fc.assert(
      fc.property(options, fc.integer({ min: 0, max: 20_000 }), ({ low, width, first, other }, tenths) => {
        const option: ItemOption = { units: `${first},${other}`, refValueMaleMin: low, refValueMaleMax: low + width };
        const value = tenths / 10;
        const inFirst = rangeIndicator(value, option, 'male');
        const converted = convertQuantity(value, first, other);
        if (converted === null) {
          expect(rangeIndicator(value, option, 'male', other)).toBeNull();
          return;
        }
        expect(rangeIndicator(converted, option, 'male', other)).toBe(inFirst);
      }),
    );
  });
});

describe('the unit an item is read in (WID-06, WID-07)', () => {
  const several: ItemOption = { units: 'mmol/L,mg/dL' };

  it('WID-07: a selector choice stands only when the item offers several units and it is one of them', () => {
    expect(selectedUnit(several, 'mg/dL')).toBe('mg/dL');
    expect(selectedUnit(several, 'furlongs')).toBeUndefined();
    expect(selectedUnit(several, 'MG/DL')).toBeUndefined();
    expect(selectedUnit(several, 5)).toBeUndefined();
    expect(selectedUnit(several, undefined)).toBeUndefined();
    expect(selectedUnit({ units: 'kg' }, 'kg')).toBeUndefined();
    expect(selectedUnit({}, 'kg')).toBeUndefined();
  });

  it('WID-06/WID-07: the value reads in the chosen unit, else the first or only one, else none', () => {
    expect(itemUnit(several, 'mg/dL')).toBe('mg/dL');
    expect(itemUnit(several, undefined)).toBe('mmol/L');
    expect(itemUnit(several, 'furlongs')).toBe('mmol/L');
    expect(itemUnit({ units: 'kg' }, 'lb')).toBe('kg');
    expect(itemUnit({}, undefined)).toBe('');
  });

  it('WID-07: a unit chosen after the first evaluation is kept and judged with, as a full evaluation would', () => {
    const definition = {
      title: '单位',
      option: {},
      children: [
        {
          name: 'hb',
          title: '血红蛋白',
          type: 'real',
          option: { units: 'g/L,g/dL', refValueMaleMin: 130, refValueMaleMax: 175 },
          children: [],
        },
      ],
    } as unknown as CrfDefinition;
    const context = { now: new Date('2026-11-22T00:00:00Z'), gender: 'male' as const };
    const first = evaluateForm(definition, { hb: '13.5' }, context);
    expect(first.items.hb!.range).toBe('low');
    const input = { ...first.values, hb_unit: 'g/dL' };
    const next = evaluateForm(definition, input, context, { previous: first, changed: ['hb_unit'] });
    expect(next.values.hb_unit).toBe('g/dL');
    expect(next.items.hb!.range).toBeNull();
    expect(JSON.parse(JSON.stringify(next))).toEqual(
      JSON.parse(JSON.stringify(evaluateForm(definition, input, context))),
    );
  });
});
