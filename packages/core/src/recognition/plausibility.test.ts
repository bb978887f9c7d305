import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { correctedName, KNOWN_ANALYTES, knownAnalyte, type AnalyteMeasure, type KnownAnalyte } from './analytes.js';
import {
  judgeRecognised,
  MIN_FILL_PROBABILITY,
  OFFER_REASONS,
  parsePrintedRange,
  rangeAgrees,
} from './plausibility.js';
import { normaliseUnit } from './units.js';

const R = OFFER_REASONS;
const row = (name: string, value: string, unit: string, referenceRange: string, flag = '', code = '') => ({
  name,
  code,
  value,
  unit,
  referenceRange,
  flag,
  probability: 0.98,
});

describe('judging a recognised row', () => {
  it.each([
    ['白细胞计数', '6.52', '10^9/L', '3.5-9.5', ''],
    ['白细胞计数', '12.10', '×10⁹/L', '3.5-9.5', '↑'],
    ['血红蛋白', '98', 'g/L', '130-175', '↓'],
    ['红细胞压积', '0.412', 'L/L', '0.40-0.50', ''],
    ['红细胞压积', '41.2', '%', '40-50', ''],
    ['天冬氨酸氨基转移酶', '320', 'IU/L', '13-35', '↑'],
    ['谷丙转氨酶', '1200', 'U/L', '0-40', '↑'],
    ['超敏C反应蛋白', '0.8', 'mg/L', '0-3', ''],
    ['高密度脂蛋白胆固醇', '1.21', 'mmol/L', '>1.04', ''],
    ['甘油三酯', '1.32', 'mmol/L', '<1.7', ''],
    ['总胆红素', '151.5', 'umol/L', '0-21', '↑'],
    ['凝血酶原时间', '12.4', '秒', '9.4-12.5', ''],
    ['D-二聚体', '0.32', 'mg/L', '0-0.55', ''],
    ['尿比重', '1.015', '', '1.003-1.030', ''],
    ['尿蛋白', '阴性', '', '阴性', ''],
    ['尿蛋白', '2+', '', '阴性', ''],
    ['颜色', '淡黄色', '', '', ''],
    // No unit or range read: the value is judged against the analyte's usual units.
    ['血小板计数', '210', '', '', ''],
    ['α-羟丁酸脱氢酶', '156', 'U/L', '72-182', ''],
    ['羟丁酸脱氢酶', '412', 'IU/L', '90-180', '↑'],
    ['β2微球蛋白', '2.15', 'mg/L', '1.0-3.0', ''],
    ['β2-微球蛋白', '1820', 'ng/mL', '604-2286', ''],
    ['凝血酶原活动度', '95', '%', '80-120', ''],
    ['红细胞(镜检)', '1-2', '/HP', '0-3', ''],
    ['尿沉渣白细胞', '偶见', '/HP', '0-5', ''],
    ['管型', '未见', '/LP', '0-1', ''],
  ])('RECOG-01: %s %s %s (%s) %s agrees and is filled', (name, value, unit, range, flag) => {
    expect(judgeRecognised(row(name, value, unit, range, flag))).toEqual({ verdict: 'fill', reasons: [] });
  });

  it.each([
    // A shifted row: 红细胞压积 carries 血红蛋白's value, unit, range and flag.
    ['红细胞压积', '170', 'g/L', '130-175', '↑', [R.implausible, R.unit, R.flag, R.range]],
    ['总胆红素', '1515', 'μmol/L', '0-21', '↑', [R.implausible]],
    ['白细胞计数', '6.52', 'mmol/L', '3.5-9.5', '', [R.unit]],
    ['白细胞计数', '6.52', '10^9/L', '3.5-9.5', '↑', [R.flag]],
    ['白细胞计数', '41', '10^9/L', '3.5-9.5', '↑', [R.lostPoint]],
    ['D-二聚体', '035', 'mg/L', '0-0.55', '', [R.lostPoint]],
    ['血红蛋白', '98', 'g/L', '3.5-9.5', '', [R.range]],
    // Without a printed range the flag is judged against the analyte's typical range.
    ['血钾', '3.0', 'mmol/L', '', '↑', [R.flag]],
    ['葡萄糖', '108', 'mg/dL', '70-110', '', [R.uncommonUnit]],
    ['白细胞计数', '阳性', '', '', '', [R.needNumber]],
    ['尿蛋白', '24', '', '阴性', '', [R.needQualitative]],
    ['尿蛋白', '阴性', '', '阴性', '↑', [R.flag]],
    // α-羟丁酸脱氢酶 read with β2微球蛋白's range, 凝血酶原活动度 with 凝血酶原时间's unit.
    ['α-羟丁酸脱氢酶', '156', 'U/L', '1.0-3.0', '', [R.range]],
    ['凝血酶原活动度', '12.4', 's', '80-120', '↓', [R.unit]],
    ['β2微球蛋白', '215', 'mg/L', '1.0-3.0', '↑', [R.implausible]],
  ])('RECOG-01: %s %s %s (%s) %s is offered', (name, value, unit, range, flag, reasons) => {
    expect(judgeRecognised(row(name, value, unit, range, flag))).toEqual({ verdict: 'offer', reasons });
  });

  it('RECOG-01: a row read with low confidence is offered', () => {
    const ok = row('白细胞计数', '6.52', '10^9/L', '3.5-9.5');
    expect(judgeRecognised({ ...ok, probability: MIN_FILL_PROBABILITY - 0.01 }).reasons).toEqual([R.lowConfidence]);
    expect(judgeRecognised({ ...ok, probability: MIN_FILL_PROBABILITY }).verdict).toBe('fill');
    // An answer without a probability is judged on the rest.
    const { probability: _, ...without } = ok;
    expect(judgeRecognised(without).verdict).toBe('fill');
  });

  it('RECOG-01: the item judges too: its bounds, its unit, the analyte it names, a result that is not exact', () => {
    const ok = row('血红蛋白', '98', 'g/L', '130-175', '↓');
    expect(judgeRecognised(ok, { min: 100, max: 200 }).reasons).toEqual([R.formLimits]);
    expect(judgeRecognised(ok, { min: 50, max: 200 }).verdict).toBe('fill');
    expect(judgeRecognised(ok, { units: ['g/dL'] }).reasons).toEqual([R.formUnit]);
    expect(judgeRecognised(ok, { units: ['g/L', 'g/dL'] }).verdict).toBe('fill');
    // A conventional unit fills an item that asks for it.
    expect(judgeRecognised(row('葡萄糖', '108', 'mg/dL', '70-110'), { units: ['mg/dL'] }).verdict).toBe('fill');
    // No unit read: the item's unit decides which ranges apply.
    expect(judgeRecognised(row('红细胞压积', '0.41', '', ''), { units: ['%'] }).reasons).toEqual([R.implausible]);
    expect(judgeRecognised(row('红细胞压积', '0.41', '', ''), { units: ['L/L'] }).verdict).toBe('fill');
    // The analyte the item names wins over the row's name: 尿糖 with the code GLU is qualitative.
    expect(judgeRecognised(row('葡萄糖', '阴性', '', '阴性', '', 'GLU'), { analytes: ['U-GLU'] }).verdict).toBe('fill');
    expect(judgeRecognised(row('葡萄糖', '阴性', '', '阴性', '', 'GLU')).reasons).toEqual([R.needNumber]);
    // `<0.5` goes into a number item as 0.5.
    expect(judgeRecognised(row('C反应蛋白', '<0.5', 'mg/L', '0-10'), { numeric: true }).reasons).toEqual([R.inexact]);
    expect(judgeRecognised(row('C反应蛋白', '<0.5', 'mg/L', '0-10')).verdict).toBe('fill');
  });

  it('RECOG-01: a row naming two analytes is judged as the one it fits (红细胞分布宽度 with the code RDW-SD)', () => {
    expect(judgeRecognised(row('红细胞分布宽度', '42.1', 'fL', '37-54', '', 'RDW-SD')).verdict).toBe('fill');
    expect(judgeRecognised(row('红细胞分布宽度', '12.9', '%', '11-16', '', 'RDW-SD')).verdict).toBe('fill');
  });

  it('RECOG-01: a row of an unknown analyte fills only on what its item confirms', () => {
    const tumour = row('癌胚抗原', '2.1', 'ng/mL', '0-5');
    expect(judgeRecognised(tumour).reasons).toEqual([R.unknown]);
    expect(judgeRecognised(tumour, { units: ['ng/mL'] }).verdict).toBe('fill');
    expect(judgeRecognised(tumour, { referenceRanges: [[0, 5]] }).verdict).toBe('fill');
    expect(judgeRecognised(tumour, { referenceRanges: [[null, 37]] }).reasons).toEqual([R.range]);
    expect(judgeRecognised(tumour, { units: ['μg/L'] }).verdict).toBe('fill');
  });
});

describe('printed ranges', () => {
  it('reads a range, a bound and nothing else', () => {
    expect(parsePrintedRange('3.5-9.5')).toEqual([3.5, 9.5]);
    expect(parsePrintedRange('3.5～9.5')).toEqual([3.5, 9.5]);
    expect(parsePrintedRange('<5')).toEqual([0, 5]);
    expect(parsePrintedRange('>1.04')).toEqual([1.04, Number.POSITIVE_INFINITY]);
    expect(parsePrintedRange('阴性')).toBeUndefined();
    expect(parsePrintedRange('9.5-3.5')).toBeUndefined();
  });

  it("takes hospitals' own ranges as the analyte's and a neighbour's as not", () => {
    expect(rangeAgrees([0, 64], [9, 50])).toBe(true); // ALT
    expect(rangeAgrees([0, 10], [0, 4])).toBe(true); // CRP
    expect(rangeAgrees([115, 150], [130, 175])).toBe(true); // HGB, women
    expect(rangeAgrees([130, 175], [40, 50])).toBe(false); // HGB's range on HCT
    expect(rangeAgrees([27, 34], [316, 354])).toBe(false); // MCH's on MCHC
    expect(rangeAgrees([0, 0.55], [0, 21])).toBe(false); // D-dimer's on bilirubin
  });
});

/** The usual measures of the quantitative analytes: what a report prints with no unit asked for. */
const usual: [KnownAnalyte, AnalyteMeasure][] = KNOWN_ANALYTES.flatMap((a) =>
  (a.measures ?? []).filter((m) => !m.conventional).map((m): [KnownAnalyte, AnalyteMeasure] => [a, m]),
);
const decimalsOf = (n: number) => (String(n).split('.')[1] ?? '').length;
const rangeText = ([low, high]: readonly [number, number]) => `${low}-${high}`;
const flagOf = (n: number, [low, high]: readonly [number, number]) => (n < low ? '↓' : n > high ? '↑' : '');

describe('the table and the judgement, over every known analyte', () => {
  it('every measure is consistent: reference inside plausible, units spelled as normaliseUnit spells them, codes unique', () => {
    expect(new Set(KNOWN_ANALYTES.map((a) => a.code)).size).toBe(KNOWN_ANALYTES.length);
    for (const [a, m] of usual) {
      expect(m.plausible[0], a.code).toBeLessThanOrEqual(m.reference[0]);
      expect(m.reference[1], a.code).toBeLessThanOrEqual(m.plausible[1]);
      for (const unit of m.units) expect(m.units, a.code).toContain(normaliseUnit(unit));
    }
  });

  it('knows every analyte the generated lab sheets print, by name and by code (心肌酶 HBDH, 肾功 β2-MG, 凝血 PTA, 镜检)', () => {
    const printed = [
      ['HBDH', 'α-羟丁酸脱氢酶', '羟丁酸脱氢酶', 'α-HBDH'],
      ['β2-MG', 'β2微球蛋白', 'β2-微球蛋白', 'B2M'],
      ['PTA', '凝血酶原活动度', '凝血酶原活动度(%)'],
      ['U-RBC', '红细胞(镜检)', '镜检红细胞', '尿红细胞'],
      ['U-WBC', '白细胞(镜检)', '镜检白细胞', '尿沉渣白细胞'],
      ['EC', '上皮细胞', '鳞状上皮细胞'],
      ['CAST', '管型', '透明管型'],
    ];
    // Other spellings and codes the sheets print for analytes the table had.
    printed.push(
      ['WBC', '白细胞数目'],
      ['HGB', '血红蛋白量'],
      ['HCT', '红细胞比积'],
      ['NEUT%', '中性粒细胞%', 'NE%', 'GRAN%'],
      ['EO#', '嗜酸细胞数', 'EOS#'],
      ['BUN', 'UREA'],
      ['TBIL', 'T-BIL'],
      ['K', 'K+'],
      ['CL', 'Cl-'],
      ['LDH', 'LD'],
      ['D-D', 'DD'],
      ['URO', 'UBG'],
      ['BLD', 'ERY'],
      ['LEU', '白细胞(干化学)'],
    );
    for (const [code, ...names] of printed) {
      for (const label of [code!, ...names]) expect([label, knownAnalyte(label)?.code]).toEqual([label, code]);
    }
    // 羟 lost: one character from 羟丁酸脱氢酶 and from 乳酸脱氢酶, so it names neither (a guess could fill LDH's item).
    expect(correctedName('丁酸脱氢酶')).toBe('丁酸脱氢酶');
    expect(correctedName('乳酸脱氧酶')).toBe('乳酸脱氢酶');
  });

  it('RECOG-01: a value inside the reference range, with its unit, range and flag, is filled', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...usual),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        ([analyte, measure], at, byCode) => {
          const [low, high] = measure.reference;
          const decimals = Math.max(decimalsOf(low), decimalsOf(high)) + 1;
          const value = (low + (high - low) * at).toFixed(decimals);
          const entry = {
            name: byCode ? '' : analyte.names[0]!,
            code: byCode ? analyte.code : '',
            value,
            unit: measure.units[0]!,
            referenceRange: rangeText(measure.reference),
            flag: flagOf(Number(value), measure.reference),
            probability: 0.99,
          };
          expect(judgeRecognised(entry), JSON.stringify(entry)).toEqual({ verdict: 'fill', reasons: [] });
        },
      ),
    );
  });

  it('RECOG-01: a plausible value outside its range, with decimals and the flag it earns, is filled', () => {
    fc.assert(
      fc.property(fc.constantFrom(...usual), fc.double({ min: 0, max: 1, noNaN: true }), ([analyte, measure], at) => {
        const [low, high] = measure.plausible;
        const value = (low + (high - low) * at).toFixed(Math.max(decimalsOf(low), decimalsOf(high), 1));
        const entry = {
          name: analyte.names[0]!,
          code: analyte.code,
          value,
          unit: measure.units[0]!,
          referenceRange: rangeText(measure.reference),
          flag: flagOf(Number(value), measure.reference),
        };
        expect(judgeRecognised(entry).verdict, JSON.stringify(entry)).toBe('fill');
      }),
    );
  });

  it('RECOG-01: a value over ten times the plausible maximum is offered, whatever its flag', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...usual),
        fc.double({ min: 10.001, max: 1000, noNaN: true }),
        fc.constantFrom('', '↑', '↓'),
        ([analyte, measure], times, flag) => {
          const value = (measure.plausible[1] * times).toFixed(2);
          const entry = {
            name: analyte.names[0]!,
            code: analyte.code,
            value,
            unit: measure.units[0]!,
            referenceRange: rangeText(measure.reference),
            flag,
          };
          const verdict = judgeRecognised(entry);
          expect(verdict.verdict, JSON.stringify(entry)).toBe('offer');
          expect(verdict.reasons).toContain(R.implausible);
        },
      ),
    );
  });
});

describe('参考范围 (issue 37): a known analyte is judged by the patient’s site range where it is known', () => {
  // A site whose WBC range (a neonatal ward's, say) is far from the table's typical 3.5–9.5.
  const neonatal = { units: ['10^9/L'], siteRange: { low: 9, high: 30, unit: '10^9/L' } };

  it('a printed range that is the site’s fills; the typical one the site does not use is offered', () => {
    expect(judgeRecognised(row('白细胞计数', '20.5', '10^9/L', '9-30')).reasons).toEqual([R.range]);
    expect(judgeRecognised(row('白细胞计数', '20.5', '10^9/L', '9-30'), neonatal)).toEqual({
      verdict: 'fill',
      reasons: [],
    });
    expect(judgeRecognised(row('白细胞计数', '6.5', '10^9/L', '3.5-9.5'), { ...neonatal }).reasons).toEqual([R.range]);
  });

  it('with no range printed, the flag and a lost decimal point are judged by the site range', () => {
    // 8.2 ↑: no contradiction of the typical range's low bound, but within a site range of 4–10.
    const site = { units: ['10^9/L'], siteRange: { low: 4, high: 10, unit: '10^9/L' } };
    expect(judgeRecognised(row('白细胞计数', '8.2', '10^9/L', '', '↑')).verdict).toBe('fill');
    expect(judgeRecognised(row('白细胞计数', '8.2', '10^9/L', '', '↑'), site).reasons).toEqual([R.flag]);
    expect(judgeRecognised(row('白细胞计数', '12.2', '10^9/L', '', '↑'), site).verdict).toBe('fill');
    // A whole 21 above the typical 9.5 looks like 2.1 with its point lost; within the site's 9–30 it is a value.
    expect(judgeRecognised(row('白细胞计数', '21', '10^9/L', '', '')).reasons).toEqual([R.lostPoint]);
    expect(judgeRecognised(row('白细胞计数', '21', '10^9/L', '', ''), neonatal).verdict).toBe('fill');
  });

  it('a site range is converted to the row’s unit; an open bound is open; one that does not convert leaves the typical range', () => {
    const perMicrolitre = { units: ['10^9/L'], siteRange: { low: 9, high: 30, unit: '10^3/μL' } };
    expect(judgeRecognised(row('白细胞计数', '20.5', '10^9/L', '9-30'), perMicrolitre).verdict).toBe('fill');
    const open = { units: ['U/L'], siteRange: { low: null, high: 120, unit: 'U/L' } };
    expect(judgeRecognised(row('谷丙转氨酶', '80', 'U/L', '<120'), open).verdict).toBe('fill');
    expect(judgeRecognised(row('谷丙转氨酶', '80', 'U/L', '', '↑'), open).reasons).toEqual([R.flag]);
    const odd = { units: ['10^9/L'], siteRange: { low: 9, high: 30, unit: 'mg' } };
    expect(judgeRecognised(row('白细胞计数', '20.5', '10^9/L', '9-30'), odd).reasons).toEqual([R.range]);
  });
});
