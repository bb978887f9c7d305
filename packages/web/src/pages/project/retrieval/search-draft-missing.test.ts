import { describe, expect, it } from 'vitest';
import type { SearchDics } from '../../../api/search.api';
import { toConditions, type Draft } from './search-draft';

/** 缺失原因 (issue 37): the builder turns 缺失原因为 / 已标记缺失 rows into item conditions, judged by core's rule. */
const dics: SearchDics = {
  patientFields: [],
  crfs: [
    {
      crfId: 5,
      title: '人口学资料',
      repeatable: false,
      stages: [],
      items: [
        {
          name: 'smoke',
          title: '吸烟',
          path: '吸烟',
          type: 'radio',
          kind: 'choice',
          options: [{ value: '1', label: '是' }],
          unit: '',
          units: [],
          operators: ['eq', 'ne', 'in', 'empty', 'notEmpty', 'missing', 'missingAny'],
          group: null,
        },
      ],
    },
  ],
  formStates: [],
  missingCodes: [{ value: 'ND', label: '未查(ND)' }],
  recordSeparator: '；',
  rowSeparator: '; ',
};

const draft = (operator: Draft['groups'][number]['rows'][number]['operator'], values: string[]): Draft => ({
  join: 'and',
  groups: [{ key: 1, join: 'and', rows: [{ key: 2, field: 'i:5:smoke', operator, values }] }],
});

describe('缺失原因 in the condition builder', () => {
  it('缺失原因为 takes the chosen codes (not the item’s options)', () => {
    expect(toConditions(dics, draft('missing', ['ND']))).toEqual({
      join: 'and',
      groups: [
        {
          join: 'and',
          conditions: [
            { kind: 'item', crfId: 5, itemName: 'smoke', stageId: null, operator: 'missing', values: ['ND'] },
          ],
        },
      ],
    });
  });

  it('缺失原因为 without a code asks for one; 已标记缺失 needs none', () => {
    expect(toConditions(dics, draft('missing', []))).toBe('吸烟：请选择缺失原因');
    expect(typeof toConditions(dics, draft('missingAny', []))).toBe('object');
  });
});
