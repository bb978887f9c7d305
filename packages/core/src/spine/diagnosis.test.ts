import { describe, expect, it } from 'vitest';
import {
  SPINE_BAND_SETS,
  SPINE_BAND_TABLES,
  SPINE_DIAGNOSIS_BANDS,
  diagnose,
  spineBandSetOf,
  type BandedKey,
} from './diagnosis.js';
import type { SpineMeasure } from './measure.js';

/** [value just below or at a bound, expected diagnosis], both sides of every bound of forms §9. */
type Case = readonly [number, string];

const check = (measure: SpineMeasure, cases: readonly Case[]) => {
  for (const [value, diagnosis] of cases) {
    expect(diagnose(measure, value)?.diagnosis, `${measure} ${value}`).toBe(diagnosis);
  }
};

const kyphosisCases = (name: string, low: string): Case[] => [
  [-5, low],
  [19.99, low],
  [20, `${name}正常`],
  [44.99, `${name}正常`],
  [45, `${name}轻度增大`],
  [59.99, `${name}轻度增大`],
  [60, `${name}轻度增大`],
  [64.99, `${name}轻度增大`],
  [65, `${name}中度增大`],
  [74.99, `${name}中度增大`],
  [75, `${name}重度增大`],
  [120, `${name}重度增大`],
];

describe('diagnose: bands of forms §9', () => {
  it('SPM-15: TK under 20 insufficient, 20–<45 normal, 45–<60 mild, 65–<75 moderate, 75+ severe', () => {
    check('TK', kyphosisCases('胸椎后凸', '胸椎后凸不足'));
  });

  it('SPM-16: LL has the same bounds as TK', () => {
    check('LL', kyphosisCases('腰椎前凸', '腰椎前凸不足'));
  });

  it('SPM-17: the unspecified 60–<65 is mild for TK and LL (decision)', () => {
    for (const measure of ['TK', 'LL'] as const) {
      expect(diagnose(measure, 60)).toEqual(diagnose(measure, 59));
      expect(diagnose(measure, 64.9)).toEqual(diagnose(measure, 59));
      expect(diagnose(measure, 65)).not.toEqual(diagnose(measure, 64));
    }
  });

  it('SPM-18: SS 30–<50 normal; 20–<30 or 50–<60 mild; 10–<20 or 60–70 moderate; under 10 or over 70 severe', () => {
    check('SS', [
      [9.99, '骶骨倾斜角重度减小'],
      [10, '骶骨倾斜角中度减小'],
      [19.99, '骶骨倾斜角中度减小'],
      [20, '骶骨倾斜角轻度减小'],
      [29.99, '骶骨倾斜角轻度减小'],
      [30, '骶骨倾斜角正常'],
      [49.99, '骶骨倾斜角正常'],
      [50, '骶骨倾斜角轻度增大'],
      [59.99, '骶骨倾斜角轻度增大'],
      [60, '骶骨倾斜角中度增大'],
      [70, '骶骨倾斜角中度增大'],
      [70.01, '骶骨倾斜角重度增大'],
    ]);
  });

  it('SPM-19: LS up to 10 normal, above 10 risk of slip progression', () => {
    check('LS', [
      [0, '滑脱角正常'],
      [10, '滑脱角正常'],
      [10.01, '滑脱角增大，有滑脱进展风险'],
    ]);
  });

  it('SPM-20: LCA under 10 negative; 10–25 observe; over 25 to 40 brace; over 40 surgery', () => {
    check('LCA', [
      [9.99, '阴性（未达脊柱侧凸诊断标准）'],
      [10, '脊柱侧凸，建议定期随访观察'],
      [25, '脊柱侧凸，建议定期随访观察'],
      [25.01, '脊柱侧凸，建议支具治疗'],
      [40, '脊柱侧凸，建议支具治疗'],
      [40.01, '脊柱侧凸，建议考虑手术治疗'],
    ]);
  });

  it('SPM-21: CL 20–40 normal; under 10 moderate loss; 10–<20 mild loss; over 40, 50, 60 mild, moderate, severe', () => {
    check('CL', [
      [-10, '颈椎前凸中度减小'],
      [9.99, '颈椎前凸中度减小'],
      [10, '颈椎前凸轻度减小'],
      [19.99, '颈椎前凸轻度减小'],
      [20, '颈椎前凸正常'],
      [40, '颈椎前凸正常'],
      [40.01, '颈椎前凸轻度增大'],
      [50, '颈椎前凸轻度增大'],
      [50.01, '颈椎前凸中度增大'],
      [60, '颈椎前凸中度增大'],
      [60.01, '颈椎前凸重度增大'],
    ]);
  });

  it('SPM-22: ISH and CVH grades from the ratio: <1/4 I, 1/4–<1/2 II, 1/2–<3/4 III, 3/4+ IV', () => {
    const sides: readonly (readonly [number, string])[] = [
      [0, 'Ⅰ'],
      [0.2499, 'Ⅰ'],
      [0.25, 'Ⅱ'],
      [0.4999, 'Ⅱ'],
      [0.5, 'Ⅲ'],
      [0.7499, 'Ⅲ'],
      [0.75, 'Ⅳ'],
      [1.2, 'Ⅳ'],
    ];
    check(
      'ISH',
      sides.map(([v, g]) => [v, `峡部裂性腰椎滑脱${g}度`]),
    );
    check(
      'CVH',
      sides.map(([v, g]) => [v, `颈椎滑脱${g}度`]),
    );
  });

  it('SPM-23: symptom and advice texts exist for ISH only', () => {
    for (const [measure, bands] of Object.entries(SPINE_DIAGNOSIS_BANDS)) {
      for (const band of bands) {
        if (measure === 'ISH') {
          expect(band.symptom).not.toBe('');
          expect(band.medicalAdvice).not.toBe('');
        } else {
          expect([band.symptom, band.medicalAdvice]).toEqual(['', '']);
        }
      }
    }
    expect(diagnose('ISH', 0.6)?.medicalAdvice).toContain('手术');
  });

  it('SPM-24: SVA (cm) under 5 mild; 5–9.5 moderate; over 9.5 severe', () => {
    check('SVA', [
      [-2, '矢状面轻度失衡'],
      [4.99, '矢状面轻度失衡'],
      [5, '矢状面中度失衡'],
      [9.5, '矢状面中度失衡'],
      [9.51, '矢状面重度失衡'],
    ]);
  });

  it('no diagnosis for PI and PT (no bands) or for a value that is not a number', () => {
    expect(diagnose('PI', 50)).toBeNull();
    expect(diagnose('PT', 20)).toBeNull();
    expect(diagnose('TK', Number.NaN)).toBeNull();
    expect(diagnose('TK', null)).toBeNull();
    expect(diagnose('SVA', Infinity)).toBeNull();
  });

  it('SPM-25: every band has a Chinese diagnosis, and the bands of a measure leave no gap', () => {
    const gaps: string[] = [];
    for (const [measure, bands] of Object.entries(SPINE_DIAGNOSIS_BANDS)) {
      for (const band of bands) expect(band.diagnosis).toMatch(/[\u4e00-\u9fff]/);
      // Every value from −100 to 200 in steps of 0.005 falls in a band.
      for (let i = -20_000; i <= 40_000; i += 1) {
        if (diagnose(measure as SpineMeasure, i / 200) === null) gaps.push(`${measure} ${i / 200}`);
      }
    }
    expect(gaps).toEqual([]);
  });
});

describe('diagnose: the literature band set (docs/spine-tools.md)', () => {
  const lit = (key: BandedKey, cases: readonly Case[]) => {
    for (const [value, diagnosis] of cases) {
      expect(diagnose(key, value, 'literature')?.diagnosis, `${key} ${value}`).toBe(diagnosis);
    }
  };

  it('the spec bands are the default; a stored band set other than literature reads as the spec', () => {
    expect(SPINE_BAND_SETS).toEqual(['spec', 'literature']);
    expect(diagnose('LL', 55)).toEqual(diagnose('LL', 55, 'spec'));
    expect(diagnose('LL', 55)?.diagnosis).toBe('腰椎前凸轻度增大');
    expect(spineBandSetOf('literature')).toBe('literature');
    for (const other of ['spec', undefined, null, 'LITERATURE', 3]) expect(spineBandSetOf(other)).toBe('spec');
  });

  it('SVA by SRS–Schwab: 0 under 4 cm (a negative SVA too), + 4–9.5 cm, ++ over 9.5 cm', () => {
    lit('SVA', [
      [-3, '矢状面平衡（SRS–Schwab 0）'],
      [3.99, '矢状面平衡（SRS–Schwab 0）'],
      [4, '矢状面中度失衡（SRS–Schwab +）'],
      [9.5, '矢状面中度失衡（SRS–Schwab +）'],
      [9.51, '矢状面重度失衡（SRS–Schwab ++）'],
    ]);
  });

  it('PT by SRS–Schwab: 0 under 20°, + 20–30°, ++ over 30°; the spec has no PT bands', () => {
    lit('PT', [
      [-8, '骨盆倾斜角正常（SRS–Schwab 0）'],
      [19, '骨盆倾斜角正常（SRS–Schwab 0）'],
      [20, '骨盆倾斜角中度增大（SRS–Schwab +）'],
      [30, '骨盆倾斜角中度增大（SRS–Schwab +）'],
      [31, '骨盆倾斜角重度增大（SRS–Schwab ++）'],
    ]);
    expect(diagnose('PT', 31, 'spec')).toBeNull();
  });

  it('PI−LL by SRS–Schwab: 0 under 10°, + 10–20°, ++ over 20°; PI itself has no bands', () => {
    lit('PI-LL', [
      [-12, 'PI−LL匹配（SRS–Schwab 0）'],
      [9, 'PI−LL匹配（SRS–Schwab 0）'],
      [10, 'PI−LL中度不匹配（SRS–Schwab +）'],
      [20, 'PI−LL中度不匹配（SRS–Schwab +）'],
      [21, 'PI−LL重度不匹配（SRS–Schwab ++）'],
    ]);
    expect(diagnose('PI', 50, 'literature')).toBeNull();
    expect(diagnose('PI-LL', 25, 'spec')).toBeNull();
  });

  it('LL normal 40–80° (a normal LL of 55° is normal, not 轻度增大)', () => {
    lit('LL', [
      [-5, '腰椎前凸减小'],
      [39, '腰椎前凸减小'],
      [40, '腰椎前凸正常'],
      [55, '腰椎前凸正常'],
      [80, '腰椎前凸正常'],
      [81, '腰椎前凸增大'],
    ]);
  });

  it('ISH and CVH by Meyerding with grade V: up to 25% I … over 100% V, with ISH texts for V', () => {
    const sides: readonly (readonly [number, string])[] = [
      [0, 'Ⅰ'],
      [0.25, 'Ⅰ'],
      [0.2501, 'Ⅱ'],
      [0.5, 'Ⅱ'],
      [0.75, 'Ⅲ'],
      [0.7501, 'Ⅳ'],
      [1, 'Ⅳ'],
      [1.01, 'Ⅴ'],
      [1.6, 'Ⅴ'],
    ];
    lit(
      'ISH',
      sides.map(([v, g]) => [v, `峡部裂性腰椎滑脱${g}度`]),
    );
    lit(
      'CVH',
      sides.map(([v, g]) => [v, `颈椎滑脱${g}度`]),
    );
    expect(diagnose('ISH', 1.2, 'literature')?.medicalAdvice).toContain('100%');
    expect(diagnose('ISH', 1.2, 'spec')?.diagnosis).toBe('峡部裂性腰椎滑脱Ⅳ度');
  });

  it('TK, SS, LS, LCA and CL read as the spec; every band set leaves no gap', () => {
    for (const m of ['TK', 'SS', 'LS', 'LCA', 'CL'] as const) {
      expect(SPINE_BAND_TABLES.literature[m]).toBe(SPINE_BAND_TABLES.spec[m]);
    }
    const gaps: string[] = [];
    for (const set of SPINE_BAND_SETS) {
      for (const [key, bands] of Object.entries(SPINE_BAND_TABLES[set])) {
        for (const band of bands) expect(band.diagnosis).toMatch(/[\u4e00-\u9fff]/);
        for (let i = -4_000; i <= 8_000; i += 1) {
          if (diagnose(key as BandedKey, i / 40, set) === null) gaps.push(`${set} ${key} ${i / 40}`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });
});
