import { describe, expect, it } from 'vitest';
import { exampleCrf, type CrfNode } from '@ecrf/core';
import { dateItems, displayColumnOptions, valueItems } from './crf-items';

const node = (type: CrfNode['type'], name: string, title: string, children: CrfNode[] = []): CrfNode => ({
  type,
  name,
  title,
  option: {},
  children,
});

const BASELINE = {
  title: '基线访视',
  definition: {
    children: [
      node('section', 'demo', '人口学', [
        node('title', '', '以下由研究者填写'),
        node('input', 'name', '姓名'),
        node('radio', 'sex', '性别'),
        node('group', 'dm', '糖尿病', [node('int', 'dm_years', '病程')]),
        node('table', 'labs', '实验室检查', [node('real', 'val', '结果')]),
        node('listGroup', 'meds', '合并用药', [node('input', 'drug', '药物')]),
        node('date', 'visit_date', '访视日期'),
        node('partialDate', 'lmp', '末次月经'),
        node('datetime', 'seen_at', '就诊时间'),
        node('input', '', '无名题目'),
      ]),
      node('card', 'c', '卡片', [node('textarea', 'note', '备注')]),
    ],
  },
};

describe('CRF item names for the study configuration', () => {
  it('STUDY-06: displayCrfColumn offers the items holding one value, without containers, titles, row items or their columns', () => {
    expect(valueItems(BASELINE.definition).map((item) => item.name)).toEqual([
      'name',
      'sex',
      'dm_years',
      'visit_date',
      'lmp',
      'seen_at',
      'note',
    ]);
  });

  it('works on the worked example that has every item type', () => {
    const names = valueItems(exampleCrf()).map((item) => item.name);
    expect(names).toContain('sbp');
    expect(names).toContain('birth');
    expect(names).not.toContain('meds');
    expect(names).not.toContain('drug');
    expect(names).not.toContain('labs');
    expect(new Set(names).size).toBe(names.length);
  });

  it('a follow trigger counts from whole dates and date-times only', () => {
    expect(dateItems(BASELINE.definition).map((item) => item.name)).toEqual(['visit_date', 'seen_at']);
  });

  it('options name each item once with its form, and keep stored names that no form has any more', () => {
    const followUp = {
      title: '随访',
      definition: { children: [node('input', 'name', '姓名（重复）'), node('real', 'weight', '体重')] },
    };
    const options = displayColumnOptions([BASELINE, followUp], ['weight', 'gone']);
    expect(options.filter((o) => o.value === 'name')).toEqual([{ value: 'name', label: '基线访视 / 姓名（name）' }]);
    expect(options.find((o) => o.value === 'weight')?.label).toBe('随访 / 体重（weight）');
    expect(options.at(-1)).toEqual({ value: 'gone', label: 'gone' });
  });
});
