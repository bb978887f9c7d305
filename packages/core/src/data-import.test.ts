import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from './crf/crf-definition.schema.js';
import { cellValue, headerMeaning, importColumns } from './data-import.js';

const definition = {
  title: '测试表',
  option: {},
  children: [
    {
      type: 'section',
      name: 's',
      title: '基本',
      option: {},
      children: [
        {
          type: 'radio',
          name: 'sex',
          title: '性别',
          option: { optionsValue: '1,2', optionsText: '男,女' },
          children: [],
        },
        {
          type: 'checkbox',
          name: 'cm',
          title: '合并症',
          option: { optionsValue: 'a,b,c', optionsText: '甲,乙,丙' },
          children: [],
        },
        { type: 'date', name: 'd', title: '日期', option: {}, children: [] },
        { type: 'datetime', name: 'dt', title: '时间', option: { format: 'yyyy-MM-dd HH:mm' }, children: [] },
        { type: 'real', name: 'w', title: '体重', option: {}, children: [] },
        { type: 'real', name: 'sex2', title: 'sex', option: {}, children: [] },
        { type: 'real', name: 'x1', title: '重复', option: {}, children: [] },
        { type: 'real', name: 'x2', title: '重复', option: {}, children: [] },
        { type: 'number', name: 'bmi', title: 'BMI', option: { calc: 'w' }, children: [] },
        { type: 'imageUpload', name: 'img', title: '图片', option: {}, children: [] },
      ],
    },
  ],
} as unknown as CrfDefinition;
const columns = importColumns(definition);
const column = (name: string) => columns.find((c) => c.name === name)!;

describe('data import: headers', () => {
  it.each([
    ['编号', 'code'],
    ['identificationCode', 'code'],
    ['序号', 'instance'],
    ['sex', 'item:sex'],
    ['性别', 'item:sex'],
    [' 体重 ', 'item:w'],
    ['重复', 'error'],
    ['bmi', 'error'],
    ['图片', 'error'],
    ['无此列', 'error'],
  ])('SRCH-06: header %s means %s (a name wins over a title; a shared title is refused)', (header, meaning) => {
    const m = headerMeaning(columns, header);
    expect(m.kind === 'item' ? `item:${m.column.name}` : m.kind).toBe(meaning);
  });
});

describe('data import: cells', () => {
  it.each([
    ['sex', '1', '1'],
    ['sex', '女', '2'],
    ['sex', '9', '9'],
    ['cm', '甲, c', ['a', 'c']],
    ['cm', 'a|b', ['a', 'b']],
    ['d', '2026-01-05 00:00:00', '2026-01-05'],
    ['d', '2026/1/5', '2026-01-05'],
    ['d', '05/01/2026', '05/01/2026'],
    ['dt', '2026-01-05 08:30:00', '2026-01-05 08:30'],
    ['w', 65.5, '65.5'],
    ['w', '  ', undefined],
    ['w', null, undefined],
  ] as const)('SRCH-06: %s ← %j is %j (codes or labels; the engine judges the rest)', (name, cell, value) => {
    expect(cellValue(column(name), cell)).toEqual(value);
  });
});
