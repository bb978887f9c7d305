import { describe, expect, it } from 'vitest';
import type { SearchDics } from '../../../api/search.api';
import { columnValue, fromConditions, sameRowGroups, toColumn, toConditions, type Draft } from './search-draft';

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
          path: '收缩压',
          type: 'int',
          kind: 'number',
          options: [],
          unit: 'mmHg',
          units: ['mmHg'],
          operators: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
          group: null,
        },
      ],
    },
    {
      crfId: 7,
      title: '术后用药',
      repeatable: true,
      stages: [],
      items: [
        {
          name: 'med_name',
          title: '药物名称',
          path: '用药记录 › 药物名称',
          type: 'input',
          kind: 'text',
          options: [],
          unit: '',
          units: [],
          operators: ['eq', 'ne', 'contains', 'empty', 'notEmpty'],
          group: { name: 'meds', title: '用药记录', type: 'listGroup' },
        },
        {
          name: 'med_dose',
          title: '剂量',
          path: '用药记录 › 剂量',
          type: 'real',
          kind: 'number',
          options: [],
          unit: 'mg',
          units: ['mg', 'g'],
          operators: ['eq', 'ne', 'gt', 'lt', 'between', 'empty', 'notEmpty'],
          group: { name: 'meds', title: '用药记录', type: 'listGroup' },
        },
      ],
    },
  ],
  formStates: [{ code: 'submitted', label: '已提交' }],
  recordSeparator: '；',
  rowSeparator: '; ',
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

  it('SRCH-03: a list-group column is named by its path; two of one group joined by 且 are flagged as one row', () => {
    expect(toConditions(dics, draft([{ key: 1, field: 'i:7:med_dose', operator: 'gt', values: ['x'] }]))).toBe(
      '用药记录 › 剂量：请输入数字',
    );
    const rows = [
      { key: 1, field: 'i:7:med_name', operator: 'eq' as const, values: ['塞来昔布'] },
      { key: 2, field: 'i:7:med_dose', operator: 'gt' as const, values: ['100'] },
      { key: 3, field: 'i:5:sbp', operator: 'gt' as const, values: ['140'] },
    ];
    expect(sameRowGroups(dics, { key: 1, join: 'and', rows })).toEqual(['用药记录']);
    expect(sameRowGroups(dics, { key: 1, join: 'or', rows })).toEqual([]);
    expect(sameRowGroups(dics, { key: 1, join: 'and', rows: rows.slice(1) })).toEqual([]);
  });
});
