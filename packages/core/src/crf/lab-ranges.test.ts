import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from './crf-definition.schema.js';
import { evaluateForm } from './evaluate-form.js';
import {
  ageInYears,
  chooseReferenceRange,
  itemAnalyte,
  rangesForForm,
  sampleDateOf,
  type LabReferenceRange,
} from './lab-ranges.js';

const row = (over: Partial<LabReferenceRange>): LabReferenceRange => ({
  id: 1,
  analyte: 'WBC',
  sex: null,
  ageMin: null,
  ageMax: null,
  lower: 3.5,
  upper: 9.5,
  unit: '10^9/L',
  effectiveFrom: '2024-01-01',
  ...over,
});

const query = { analyte: 'WBC', sex: 1 as const, ageYears: 40, sampleDate: '2024-06-15' };

describe('chooseReferenceRange (参考范围, issue 37)', () => {
  const cases: Array<[string, LabReferenceRange[], Partial<typeof query>, number | null]> = [
    ['no rows: none', [], {}, null],
    ['another analyte: none', [row({ analyte: 'HGB' })], {}, null],
    ['analyte codes compare without case', [row({ analyte: 'wbc' })], {}, 1],
    ['not yet effective at the sample date: none', [row({ effectiveFrom: '2024-07-01' })], {}, null],
    ['effective on the sample date itself', [row({ effectiveFrom: '2024-06-15' })], {}, 1],
    [
      'the latest effective on or before the sample date',
      [row({ id: 1, effectiveFrom: '2023-01-01' }), row({ id: 2, effectiveFrom: '2024-03-01' })],
      {},
      2,
    ],
    [
      'a sex-specific row before a both-sexes row of the same date',
      [row({ id: 1 }), row({ id: 2, sex: 1 }), row({ id: 3, sex: 2 })],
      {},
      2,
    ],
    ['the other sex: none', [row({ sex: 2 })], {}, null],
    ['unknown sex takes only both-sexes rows', [row({ id: 1 }), row({ id: 2, sex: 1 })], { sex: null as never }, 1],
    ['age band [min, max): min inside', [row({ ageMin: 40, ageMax: 60 })], {}, 1],
    ['age band [min, max): max outside', [row({ ageMin: 18, ageMax: 40 })], {}, null],
    ['an age-bounded row needs a known age', [row({ ageMin: 18 })], { ageYears: null as never }, null],
  ];
  it.each(cases)('%s', (_, ranges, q, expected) => {
    expect(chooseReferenceRange(ranges, { ...query, ...q })?.id ?? null).toBe(expected);
  });

  const arbRow: fc.Arbitrary<LabReferenceRange> = fc.record({
    id: fc.integer({ min: 1, max: 1000 }),
    analyte: fc.constantFrom('WBC', 'HGB'),
    sex: fc.constantFrom(null, 1 as const, 2 as const),
    ageMin: fc.constantFrom(null, 0, 18, 65),
    ageMax: fc.constantFrom(null, 18, 65, 120),
    lower: fc.constant(1),
    upper: fc.constant(2),
    unit: fc.constant(null),
    effectiveFrom: fc.constantFrom('2023-01-01', '2024-01-01', '2024-06-15', '2025-01-01'),
  });

  it('property: the chosen row matches and no matching row is effective later', () => {
    fc.assert(
      fc.property(fc.array(arbRow, { maxLength: 12 }), fc.constantFrom(1 as const, 2 as const, null), (rows, sex) => {
        const q = { ...query, sex };
        const chosen = chooseReferenceRange(rows, q);
        const matching = rows.filter(
          (r) =>
            r.analyte === q.analyte &&
            r.effectiveFrom <= q.sampleDate &&
            (r.sex === null || r.sex === sex) &&
            (r.ageMin === null || q.ageYears >= r.ageMin) &&
            (r.ageMax === null || q.ageYears < r.ageMax),
        );
        if (matching.length === 0) return chosen === null;
        if (chosen === null || !matching.includes(chosen)) return false;
        const later = matching.some((r) => r.effectiveFrom > chosen.effectiveFrom);
        const sexBeats = matching.some(
          (r) => r.effectiveFrom === chosen.effectiveFrom && r.sex !== null && chosen.sex === null,
        );
        return !later && !sexBeats;
      }),
    );
  });

  it('property: the order of the rows does not change the choice', () => {
    fc.assert(
      fc.property(fc.uniqueArray(arbRow, { selector: (r) => r.id, maxLength: 10 }), (rows) => {
        const a = chooseReferenceRange(rows, query);
        const b = chooseReferenceRange([...rows].reverse(), query);
        return a === b;
      }),
    );
  });
});

describe('the item a site range judges', () => {
  const node = (name: string, title: string, option = {}) => ({ name, title, option });
  it('names its analyte: the analyte option, then a known analyte, then its name', () => {
    expect(itemAnalyte(node('x1', '白细胞', { analyte: 'LEU' }))).toBe('LEU');
    expect(itemAnalyte(node('x1', '白细胞计数'))).toBe('WBC');
    expect(itemAnalyte(node('x1', '某项目（ALT）'))).toBe('ALT');
    expect(itemAnalyte(node('custom_1', '自定义'))).toBe('custom_1');
  });

  it('ages in completed months over twelve', () => {
    expect(ageInYears('1984-06-16', '2024-06-15')).toBe(39 + 11 / 12);
    expect(ageInYears('1984-06-15', '2024-06-15')).toBe(40);
    expect(ageInYears('2024-01-15', '2024-07-15')).toBe(0.5);
    expect(ageInYears(null, '2024-06-15')).toBeNull();
  });
});

const labForm: CrfDefinition = {
  type: 'form',
  name: '',
  title: '血常规',
  option: {},
  children: [
    { type: 'date', name: 'sample_date', title: '采样日期', option: { sampleDate: true }, children: [] },
    {
      type: 'real',
      name: 'wbc',
      title: '白细胞计数',
      option: { units: '10^9/L', refValueMaleMin: 3.5, refValueMaleMax: 9.5 },
      children: [],
    },
    {
      type: 'real',
      name: 'hgb',
      title: '血红蛋白',
      option: { refValueMaleMin: 130, refValueMaleMax: 175 },
      children: [],
    },
  ],
} as unknown as CrfDefinition;

describe('a lab form judged by the site range', () => {
  const site = [row({ id: 7, lower: 4, upper: 10, sex: 1 })];

  it('takes the sample date from the item marked sampleDate, else the record date, else today', () => {
    expect(sampleDateOf(labForm, { sample_date: '2024-05-02' }, { today: '2024-06-15' })).toBe('2024-05-02');
    expect(sampleDateOf(labForm, {}, { recordDate: '2024-05-01', today: '2024-06-15' })).toBe('2024-05-01');
    expect(sampleDateOf(labForm, {}, { today: '2024-06-15' })).toBe('2024-06-15');
  });

  it('stores the site range for an analyte the site has and the item range for one it lacks', () => {
    const { overrides, used } = rangesForForm(labForm, site, {
      gender: 'male',
      ageYears: 40,
      sampleDate: '2024-06-15',
    });
    expect(overrides).toEqual({ wbc: { lower: 4, upper: 10, unit: '10^9/L' } });
    expect(used.wbc).toEqual({ lower: 4, upper: 10, unit: '10^9/L', source: 'site', rangeId: 7 });
    expect(used.hgb).toEqual({ lower: 130, upper: 175, unit: null, source: 'item', rangeId: null });
  });

  it('flags ↑ by the site range where the item range would not', () => {
    const now = new Date(Date.UTC(2024, 5, 15, 2));
    const values = { wbc: '9.3' };
    expect(evaluateForm(labForm, values, { now, gender: 'male' }).items.wbc!.range).toBeNull();
    const referenceRanges = { wbc: { lower: 4, upper: 9, unit: '10^9/L' } };
    expect(evaluateForm(labForm, values, { now, gender: 'male', referenceRanges }).items.wbc!.range).toBe('high');
  });

  it('converts a site range in another unit, and gives no flag when the units do not convert', () => {
    const now = new Date(Date.UTC(2024, 5, 15, 2));
    const hgb = { hgb: { lower: 13, upper: 17.5, unit: 'g/dL' } };
    const form = {
      ...labForm,
      children: [{ ...labForm.children[2]!, option: { units: 'g/L' } }],
    } as CrfDefinition;
    expect(evaluateForm(form, { hgb: '120' }, { now, gender: 'male', referenceRanges: hgb }).items.hgb!.range).toBe(
      'low',
    );
    const odd = { hgb: { lower: 1, upper: 2, unit: '个/HP' } };
    expect(
      evaluateForm(form, { hgb: '120' }, { now, gender: 'male', referenceRanges: odd }).items.hgb!.range,
    ).toBeNull();
  });
});
