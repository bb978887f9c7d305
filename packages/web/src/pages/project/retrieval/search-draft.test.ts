import { describe, expect, it } from 'vitest';
import type { SearchDics } from '../../../api/search.api';
import { columnValue, fromConditions, toColumn, toConditions, type Draft } from './search-draft';

const dics: SearchDics = {
  patientFields: [
    {
      field: 'gender',
      title: '性别',
      kind: 'choice',
      operators: ['eq', 'ne', 'in', 'empty', 'notEmpty'],
      options: [
        { value: '1', label: '男' },
        { value: '0', label: '女' },
      ],
    },
  ],
  crfs: [
    {
      crfId: 5,
      title: '生命体征',
      repeatable: false,
      stages: [{ stageId: 2, name: '基线' }],
      items: [
        {
          name: 'sbp',
          title: '收缩压',
          type: 'int',
          kind: 'number',
          options: [],
          unit: 'mmHg',
          operators: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
        },
      ],
    },
  ],
  formStates: [{ code: 'submitted', label: '已提交' }],
  recordSeparator: '；',
};

const draft = (rows: Draft['groups'][number]['rows'], join: Draft['join'] = 'or'): Draft => ({
  join,
  groups: [{ key: 1, join: 'and', rows }],
});

describe('the retrieval builder', () => {
  it('SRCH-03: a built draft becomes the API conditions and comes back from a template unchanged', () => {
    const built = toConditions(
      dics,
      draft([
        { key: 1, field: 'p:gender', operator: 'eq', values: ['1'] },
        { key: 2, field: 'i:5:sbp', stageId: 2, operator: 'between', values: ['120', ' 140 '] },
        { key: 3, field: 's:5', operator: 'ne', values: ['submitted'] },
        { key: 4, values: [] },
      ]),
    );
    expect(built).toEqual({
      join: 'or',
      groups: [
        {
          join: 'and',
          conditions: [
            { kind: 'patient', field: 'gender', operator: 'eq', values: ['1'] },
            { kind: 'item', crfId: 5, itemName: 'sbp', stageId: 2, operator: 'between', values: ['120', '140'] },
            { kind: 'formState', crfId: 5, stageId: null, operator: 'ne', values: ['submitted'] },
          ],
        },
      ],
    });
    if (typeof built === 'string') throw new Error(built);
    expect(toConditions(dics, fromConditions(built))).toEqual(built);
  });

  it('SRCH-03: an incomplete or wrong row is answered with the message the core rule gives', () => {
    expect(toConditions(dics, draft([{ key: 1, field: 'i:5:sbp', values: [] }]))).toBe(
      '请完成每个条件的字段、运算符和值',
    );
    expect(toConditions(dics, draft([{ key: 1, field: 'i:5:sbp', operator: 'gt', values: ['abc'] }]))).toBe(
      '收缩压：请输入数字',
    );
    // A field the user may no longer search (a template shared before a permission changed).
    expect(toConditions(dics, draft([{ key: 1, field: 'i:9:x', operator: 'eq', values: ['1'] }]))).toBe(
      '请完成每个条件的字段、运算符和值',
    );
  });

  it('SRCH-03: columns round-trip through the picker values', () => {
    for (const column of [
      { kind: 'patient', field: 'age' },
      { kind: 'item', crfId: 5, itemName: 'sbp' },
    ] as const) {
      expect(toColumn(columnValue(column))).toEqual(column);
    }
  });
});
