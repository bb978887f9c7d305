import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '../crf/crf-definition.schema.js';
import { matchRecognised, recognisedEntries, recognitionAnswer } from './mapping.js';
import { OFFER_REASONS } from './plausibility.js';
import type { LabRow } from './lab-report.js';

const row = (name: string, code: string, value: string): LabRow => ({
  name,
  code,
  value,
  unit: '',
  referenceRange: '',
  flag: '',
  confidence: 0.987,
});

describe('recognition answer and data set', () => {
  it('RECOG-09: identify type 1 answers data.data.ret and yields word_name → word', () => {
    const data = recognitionAnswer(1, [row('白细胞计数', 'WBC', '6.52'), row('血红蛋白', 'HGB', '98')], {
      fileKey: 'f',
      recognitionId: 1,
    });
    expect(data).toMatchObject({ data: { ret: [{ word_name: '白细胞计数', word: '6.52', probability: 0.99 }, {}] } });
    expect(recognisedEntries(1, data).map((e) => [e.name, e.value])).toEqual([
      ['白细胞计数', '6.52'],
      ['血红蛋白', '98'],
    ]);
    // The other shape is not read for type 1, nor the data-set shape for other types.
    expect(recognisedEntries(1, { items: [{ projectName: 'a', result: '1' }] })).toEqual([]);
    expect(recognisedEntries(2, data)).toEqual([]);
  });

  it('RECOG-10: other types answer data.items with projectName and projectCode', () => {
    const data = recognitionAnswer(2, [row('*白细胞计数', 'WBC', '6.52')], { fileKey: 'f', recognitionId: 1 });
    expect(data).toMatchObject({ items: [{ projectName: '*白细胞计数', projectCode: 'WBC', result: '6.52' }] });
  });

  it('RECOG-10: a leading * is stripped and a duplicate project name gets its code appended', () => {
    const entries = recognisedEntries(3, {
      items: [
        { projectName: '*白细胞', projectCode: 'WBC', result: '12.1' },
        { projectName: '白细胞', projectCode: 'LEU', result: '阴性' },
        { projectName: '**葡萄糖', projectCode: 'GLU', result: '5.1' },
        { projectName: '白细胞', projectCode: 'LEU', result: '1+' },
        { projectName: '', projectCode: 'X', result: '1' },
        'not an item',
      ],
    });
    expect(entries.map((e) => [e.name, e.code, e.value])).toEqual([
      ['白细胞', 'WBC', '12.1'],
      ['白细胞LEU', 'LEU', '阴性'],
      ['葡萄糖', 'GLU', '5.1'],
    ]);
  });

  it('RECOG-09, RECOG-10: each row carries its crop and probability through the answer into the entries', () => {
    const crop = 'data:image/jpeg;base64,/9j/4AAQ';
    const rows = [{ ...row('白细胞计数', 'WBC', '6.52'), crop }, row('血红蛋白', 'HGB', '98')];
    for (const type of [1, 2]) {
      const data = recognitionAnswer(type, rows, { fileKey: 'f', recognitionId: 1 });
      const answered =
        type === 1 ? (data as { data: { ret: object[] } }).data.ret : (data as { items: object[] }).items;
      expect(answered[0]).toMatchObject({ crop, probability: 0.99 });
      expect(answered[1]).not.toHaveProperty('crop');
      const entries = recognisedEntries(type, data);
      expect(entries[0]).toMatchObject({ crop, probability: 0.99 });
      expect(entries[1]).toMatchObject({ probability: 0.99 });
      expect(entries[1]).not.toHaveProperty('crop');
    }
    // A crop that is not an image data URL is not passed on; a probability may come as text.
    const [entry] = recognisedEntries(2, {
      items: [{ projectName: '血红蛋白', result: '98', crop: 'javascript:alert(1)', probability: '0.5' }],
    });
    expect(entry).toMatchObject({ probability: 0.5 });
    expect(entry).not.toHaveProperty('crop');
  });

  it('answers nothing for a missing or malformed body', () => {
    expect(recognisedEntries(1, null)).toEqual([]);
    expect(recognisedEntries(1, { data: { ret: 'x' } })).toEqual([]);
    expect(recognisedEntries(2, { items: {} })).toEqual([]);
  });
});

describe('matching recognised values to form items', () => {
  const form: CrfDefinition = {
    title: '血常规',
    option: { identifyType: 2 },
    children: [
      {
        name: 's1',
        title: '血常规',
        type: 'section',
        option: {},
        children: [
          { name: 'wbc', title: '白细胞计数', type: 'real', option: {}, children: [] },
          { name: 'hb', title: '血红蛋白(HGB)', type: 'int', option: {}, children: [] },
          { name: 'plt', title: '血小板', type: 'real', option: { aliases: 'PLT计数, 血小板总数' }, children: [] },
          { name: 'neut', title: '中性粒细胞', type: 'real', option: { aliases: ['NEUT%'] }, children: [] },
          { name: 'crp', title: 'CRP', type: 'real', option: {}, children: [] },
          {
            name: 'pro',
            title: '尿蛋白',
            type: 'radio',
            option: { optionsValue: '0,1', optionsText: '阴性,阳性' },
            children: [],
          },
          { name: 'leu', title: '尿白细胞', type: 'input', option: { aliases: ['白细胞计数LEU'] }, children: [] },
          { name: 'rbc', title: '红细胞计数', type: 'real', option: { hidden: 1 }, children: [] },
          {
            name: 'rows',
            title: '其他',
            type: 'listGroup',
            option: {},
            children: [{ name: 'glu', title: '葡萄糖', type: 'real', option: {}, children: [] }],
          },
        ],
      },
    ],
  };

  it('RECOG-01: fills items by title, alias, code and known analyte, once each, values fitted to the item', () => {
    const entries = recognisedEntries(2, {
      items: [
        { projectName: '*白细胞计数', projectCode: 'WBC', result: '6.52' },
        { projectName: '血红蛋白', projectCode: 'HGB', result: '98' },
        { projectName: '血小板总数', projectCode: '', result: '356' },
        { projectName: '中性粒细胞百分比', projectCode: 'NEUT%', result: '72.1' },
        { projectName: '超敏C反应蛋白', projectCode: '', result: '<0.5' },
        { projectName: '蛋白质', projectCode: 'PRO', result: '阴性' },
        { projectName: '白细胞计数', projectCode: 'LEU', result: '1+' },
        { projectName: '红细胞计数', projectCode: 'RBC', result: '4.1' },
        { projectName: '葡萄糖', projectCode: 'GLU', result: '5.1' },
      ],
    });
    const { filled, unmatched } = matchRecognised(form, entries);
    const got = Object.fromEntries(filled.map((f) => [f.itemName, [f.value, f.matchedBy]]));
    expect(got).toEqual({
      wbc: ['6.52', 'name'],
      hb: ['98', 'name'],
      plt: ['356', 'alias'],
      neut: ['72.1', 'alias'],
      crp: ['0.5', 'analyte'],
      pro: ['0', 'code'],
      leu: ['1+', 'alias'],
    });
    // A hidden item and a list group's column are not filled.
    expect(unmatched.map((e) => e.name)).toEqual(['红细胞计数', '葡萄糖']);
  });

  it('leaves out a value that does not fit the item', () => {
    const { filled } = matchRecognised(form.children, [
      { name: '白细胞计数', code: '', value: '阴性', unit: '', referenceRange: '', flag: '' },
      { name: '血红蛋白', code: '', value: '98.5', unit: '', referenceRange: '', flag: '' },
      { name: '尿蛋白', code: '', value: '±', unit: '', referenceRange: '', flag: '' },
    ]);
    expect(filled).toEqual([]);
  });

  describe('a qualitative result fills the choice saying the same, never another', () => {
    const choice = (name: string, title: string, optionsText: string, optionsValue?: string): CrfNode => ({
      name,
      title,
      type: 'radio',
      option: {
        optionsText,
        optionsValue:
          optionsValue ??
          optionsText
            .split(',')
            .map((_, i) => i)
            .join(','),
      },
      children: [],
    });
    const fill = (node: CrfNode, value: string) =>
      matchRecognised(
        [node],
        [{ name: node.title, code: '', value, unit: '', referenceRange: '', flag: '', probability: 0.97 }],
      ).filled[0];

    it('RECOG-01: 阴性(-), -, (-), 阴性（－）, NEG fill 阴性; +, 阳性(+), 2+ fill 阳性 (filled, no reasons)', () => {
      const pro = choice('pro', '尿蛋白', '阴性,阳性');
      for (const value of ['阴性', '阴性(-)', '-', '(-)', '阴性（－）', 'NEG']) {
        expect([value, fill(pro, value)]).toMatchObject([value, { value: '0', verdict: 'fill', reasons: [] }]);
      }
      for (const value of ['+', '阳性(+)', '2+', '阳性(++)']) {
        expect([value, fill(pro, value)]).toMatchObject([value, { value: '1', verdict: 'fill', reasons: [] }]);
      }
    });

    it('RECOG-01: the grades fill their option among 阴性,±,1+,2+,3+ (+- and 弱阳性 fill ±, ++ fills 2+)', () => {
      const glu = choice('glu', '尿糖', '阴性,±,1+,2+,3+', 'neg,tr,1,2,3');
      const cases = [
        ['-', 'neg'],
        ['阴性(-)', 'neg'],
        ['+-', 'tr'],
        ['弱阳性', 'tr'],
        ['弱阳性(±)', 'tr'],
        ['+', '1'],
        ['++', '2'],
        ['阳性(2+)', '2'],
        ['+++', '3'],
      ];
      for (const [value, want] of cases) expect([value, fill(glu, value)?.value]).toEqual([value, want]);
    });

    it('RECOG-01: a trace fills neither 阴性 nor 阳性; Normal fills 正常 only; 阳性 fills no graded option', () => {
      const pro = choice('pro', '尿蛋白', '阴性,阳性');
      for (const value of ['±', '+-', '弱阳性', '微量', 'Normal']) {
        expect([value, fill(pro, value)]).toEqual([value, undefined]);
      }
      expect(fill(choice('uro', '尿胆原', '正常,1+,2+'), 'Normal')?.value).toBe('0');
      expect(fill(choice('ket', '酮体', '-,+,++'), '阳性')).toBeUndefined();
      // An option printed like the result is taken as printed.
      expect(fill(choice('col', '颜色', '淡黄色,黄色,红色'), '淡黄色')?.value).toBe('0');
    });

    it('RECOG-01: the gate still judges a qualitative fill (low confidence offered, a flag on 阴性 offered)', () => {
      const pro = choice('pro', '尿蛋白', '阴性,阳性');
      const entry = { name: '尿蛋白', code: '', value: '阴性(-)', unit: '', referenceRange: '阴性', flag: '' };
      const low = matchRecognised([pro], [{ ...entry, probability: 0.3 }]).filled[0];
      expect(low).toMatchObject({ value: '0', verdict: 'offer', reasons: [OFFER_REASONS.lowConfidence] });
      const flagged = matchRecognised([pro], [{ ...entry, flag: '↑', probability: 0.97 }]).filled[0];
      expect(flagged).toMatchObject({ value: '0', verdict: 'offer' });
      expect(flagged!.reasons).toContain(OFFER_REASONS.flag);
    });
  });

  describe('filled or offered (a wrong value is worse than none)', () => {
    const blood: CrfDefinition = {
      title: '血常规',
      option: { identifyType: 2 },
      children: [
        { name: 'wbc', title: '白细胞计数', type: 'real', option: { units: '10^9/L' }, children: [] },
        {
          name: 'hgb',
          title: '血红蛋白',
          type: 'int',
          option: { units: 'g/L', validate: { min: 30, max: 250 } },
          children: [],
        },
        { name: 'hct', title: '红细胞压积', type: 'real', option: { units: '%' }, children: [] },
        { name: 'plt', title: '血小板计数', type: 'int', option: {}, children: [] },
        { name: 'tbil', title: '总胆红素', type: 'real', option: { units: 'μmol/L' }, children: [] },
      ],
    };
    const item = (projectName: string, result: string, unit: string, referenceRange: string, flag = '') => ({
      projectName,
      projectCode: '',
      result,
      unit,
      referenceRange,
      flag,
      probability: 0.97,
    });
    const judged = (items: object[]) =>
      Object.fromEntries(
        matchRecognised(blood, recognisedEntries(2, { items })).filled.map((f) => [
          f.itemName,
          { value: f.value, verdict: f.verdict, reasons: f.reasons },
        ]),
      );

    it("RECOG-01: a shifted row (红细胞压积 read with 血红蛋白's 170 ↑ and 130-175) is offered with the range reason", () => {
      const got = judged([item('红细胞压积', '170', '', '130-175', '↑')]);
      expect(got.hct).toMatchObject({ value: '170', verdict: 'offer' });
      expect(got.hct!.reasons).toContain(OFFER_REASONS.range);
    });

    it('RECOG-01: a lost decimal point (总胆红素 1515 against 0-21 μmol/L) is offered', () => {
      const got = judged([item('总胆红素', '1515', 'μmol/L', '0-21', '↑')]);
      expect(got.tbil).toEqual({ value: '1515', verdict: 'offer', reasons: [OFFER_REASONS.implausible] });
    });

    it("RECOG-01: a unit that is not the analyte's (mmol/L on 白细胞计数) is offered", () => {
      const got = judged([item('白细胞计数', '6.52', 'mmol/L', '3.5-9.5')]);
      expect(got.wbc).toEqual({
        value: '6.52',
        verdict: 'offer',
        reasons: [OFFER_REASONS.unit, OFFER_REASONS.formUnit],
      });
    });

    it('RECOG-01: a flag ↑ on a value inside its range is offered', () => {
      const got = judged([item('血小板计数', '210', '10^9/L', '125-350', '↑')]);
      expect(got.plt).toEqual({ value: '210', verdict: 'offer', reasons: [OFFER_REASONS.flag] });
    });

    it("RECOG-01: a value outside the item's validate.min/max is offered", () => {
      const got = judged([item('血红蛋白', '28', 'g/L', '130-175', '↓')]);
      expect(got.hgb).toEqual({ value: '28', verdict: 'offer', reasons: [OFFER_REASONS.formLimits] });
    });

    it('RECOG-01: rows whose name, value, unit, range and flag agree are filled', () => {
      const { filled, unmatched } = matchRecognised(
        blood,
        recognisedEntries(2, {
          items: [
            item('*白细胞计数', '6.52', '10^9/L', '3.5-9.5'),
            item('血红蛋白', '98', 'g/L', '130-175', '↓'),
            item('红细胞压积', '29.8', '%', '40-50', '↓'),
            item('血小板计数', '356', '×10⁹/L', '125-350', '↑'),
            item('总胆红素', '151.5', 'umol/L', '0-21', '↑'),
          ],
        }),
      );
      expect(filled.map((f) => [f.itemName, f.value, f.verdict, f.reasons])).toEqual([
        ['wbc', '6.52', 'fill', []],
        ['hgb', '98', 'fill', []],
        ['hct', '29.8', 'fill', []],
        ['plt', '356', 'fill', []],
        ['tbil', '151.5', 'fill', []],
      ]);
      expect(unmatched).toEqual([]);
    });
  });
});

describe('参考范围 (issue 37): a recognised row is judged by the patient site range', () => {
  const item: CrfNode = {
    name: 'aqp4',
    title: '抗AQP4抗体',
    type: 'real',
    option: { units: 'U/mL', refValueMaleMin: 0, refValueMaleMax: 3, refValueFemaleMin: 0, refValueFemaleMax: 3 },
    children: [],
  } as unknown as CrfNode;
  const entry = { name: '抗AQP4抗体', code: '', value: '12.5', unit: 'U/mL', referenceRange: '10-25', flag: '' };

  it('a printed range the item does not know is offered; the site range that prints it fills', () => {
    const own = matchRecognised([item], [entry]).filled[0]!;
    expect([own.verdict, own.reasons]).toEqual(['offer', [OFFER_REASONS.range]]);
    const site = matchRecognised([item], [entry], { aqp4: { lower: 10, upper: 25, unit: 'U/mL' } }).filled[0]!;
    expect([site.verdict, site.reasons]).toEqual(['fill', []]);
  });

  it('a site range in another unit is converted; one that does not convert confirms nothing', () => {
    const inL = matchRecognised([item], [entry], { aqp4: { lower: 10000, upper: 25000, unit: 'U/L' } }).filled[0]!;
    expect(inL.verdict).toBe('fill');
    const odd = matchRecognised([item], [entry], { aqp4: { lower: 10, upper: 25, unit: 'mg' } }).filled[0]!;
    // No range to confirm the printed one: an unknown analyte fills on its unit alone, as without any range.
    expect(odd.verdict).toBe('fill');
  });
});

describe('参考范围 (issue 37): a known analyte’s fill verdict uses the patient site range', () => {
  const wbc: CrfNode = {
    name: 'wbc',
    title: '白细胞计数',
    type: 'real',
    option: { units: '10^9/L', refValueMaleMin: 3.5, refValueMaleMax: 9.5 },
    children: [],
  } as unknown as CrfNode;
  const entry = { name: '白细胞计数', code: '', value: '20.5', unit: '10^9/L', referenceRange: '9-30', flag: '' };

  it('a report printing the site’s own range fills; without the site range the typical one offers it', () => {
    const typical = matchRecognised([wbc], [entry]).filled[0]!;
    expect([typical.verdict, typical.reasons]).toEqual(['offer', [OFFER_REASONS.range]]);
    const site = matchRecognised([wbc], [entry], { wbc: { lower: 9, upper: 30, unit: '10^9/L' } }).filled[0]!;
    expect([site.verdict, site.reasons]).toEqual(['fill', []]);
  });

  it('the site range is read in the item’s unit (a range kept in 10^3/μL judges a row in 10^9/L)', () => {
    const noRange = { ...entry, referenceRange: '', flag: '↑' };
    const site = matchRecognised([wbc], [noRange], { wbc: { lower: 4, upper: 10, unit: '10^3/μL' } }).filled[0]!;
    expect(site.verdict).toBe('fill');
    const within = matchRecognised([wbc], [{ ...noRange, value: '8.2' }], {
      wbc: { lower: 4, upper: 10, unit: '10^3/μL' },
    }).filled[0]!;
    expect([within.verdict, within.reasons]).toEqual(['offer', [OFFER_REASONS.flag]]);
  });
});
