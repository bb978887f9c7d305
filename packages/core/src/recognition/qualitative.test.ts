import { describe, expect, it } from 'vitest';
import { isQualitative, qualitativeKey, qualitativeOption, qualitativeText, sameQualitative } from './qualitative.js';

describe('qualitative results', () => {
  it.each([
    ['阴性', '阴性'],
    ['阴性(-)', '阴性(-)'],
    ['阴性（-）', '阴性(-)'],
    ['阴性 (—)', '阴性(-)'],
    ['阴性(−)', '阴性(-)'],
    ['-', '-'],
    ['+-', '+-'],
    ['±', '±'],
    ['阳性(+)', '阳性(+)'],
    ['阳性（++）', '阳性(++)'],
    ['2+', '2+'],
    ['弱阳性', '弱阳性'],
    ['NEG', 'NEG'],
    ['淡黄色', '淡黄色'],
    ['偶见', '偶见'],
  ])('%s is answered as printed: %s', (printed, answered) => {
    expect(isQualitative(printed)).toBe(true);
    expect(qualitativeText(printed)).toBe(answered);
  });

  it('numbers, ranges, names and units are not qualitative results', () => {
    for (const text of ['6.52', '3.5-9.5', '1-2', '白细胞计数', '10^9/L', 'WBC', '', '阴性对照']) {
      expect(isQualitative(text)).toBe(false);
    }
  });

  it('knows which printings say the same', () => {
    const groups = [
      ['阴性', '阴性(-)', '-', '(-)', 'NEG', 'negative', '阴性（－）'],
      ['±', '+-', '弱阳性', '可疑', '微量', '阳性(±)', 'trace'],
      ['+', '1+', '阳性(+)', '(+)', '+1'],
      ['++', '2+', '阳性(++)', '阳性(2+)'],
      ['+++', '3+', '阳性(+++)'],
      ['++++', '4+', '阳性(4+)'],
      ['阳性', 'POS', 'positive'],
      ['正常', 'normal'],
    ];
    const keys = groups.map((g) => g.map(qualitativeKey));
    for (const [i, group] of keys.entries()) {
      expect(new Set(group).size, groups[i]!.join(' ')).toBe(1);
      expect(group[0]).toBeDefined();
    }
    expect(new Set(keys.map((k) => k[0])).size).toBe(groups.length);
    expect(sameQualitative('阴性(-)', '阴性')).toBe(true);
    expect(sameQualitative('阳性(+)', '阴性')).toBe(false);
    expect(sameQualitative('6.5', '6.5')).toBe(false);
    expect(qualitativeKey('淡黄色')).toBeUndefined();
  });

  it('finds the option a printed result stands for: the same text, else the same result, else 阳性 for a graded one', () => {
    expect(qualitativeOption('阴性(-)', ['阴性(-)', '阳性(+)'])).toBe(0);
    expect(qualitativeOption('阴性(-)', ['阳性', '阴性'])).toBe(1);
    expect(qualitativeOption('-', ['阳性', '阴性'])).toBe(1);
    expect(qualitativeOption('阴性', ['阳性(+)', '阴性(-)'])).toBe(1);
    expect(qualitativeOption('+-', ['-', '±', '+'])).toBe(1);
    expect(qualitativeOption('2+', ['-', '+', '++', '+++'])).toBe(2);
    expect(qualitativeOption('阳性(++)', ['阴性', '阳性'])).toBe(1);
    expect(qualitativeOption('阳性', ['-', '+', '++'])).toBe(-1);
    expect(qualitativeOption('±', ['阴性', '阳性'])).toBe(-1);
    expect(qualitativeOption('淡黄色', ['淡黄色', '黄色'])).toBe(0);
    expect(qualitativeOption('6.5', ['6.5'])).toBe(-1);
  });

  it('every printing of a dipstick grade fills that grade among the options 阴性 ± 1+ 2+ 3+, and 阴性 阳性', () => {
    const grades = ['阴性', '±', '1+', '2+', '3+'];
    const printings = [
      ['阴性', '阴性(-)', '-', '(-)', 'NEG'],
      ['弱阳性', '+-', '±', '弱阳性(±)', '微量'],
      ['1+', '+', '阳性(+)', '(+)'],
      ['2+', '++', '阳性(++)'],
      ['3+', '+++', '阳性(3+)'],
    ];
    printings.forEach((group, grade) => {
      for (const printed of group) expect([printed, qualitativeOption(printed, grades)]).toEqual([printed, grade]);
    });
    for (const printed of ['+', '阳性(+)', '(+)', '阳性', '2+']) {
      expect(qualitativeOption(printed, ['阴性', '阳性'])).toBe(1);
    }
    for (const printed of ['-', '(-)', '阴性(-)']) expect(qualitativeOption(printed, ['阴性', '阳性'])).toBe(0);
    expect(qualitativeOption('Normal', ['正常', '1+', '2+'])).toBe(0);
  });
});
