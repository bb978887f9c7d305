import { describe, expect, it } from 'vitest';
import {
  conditionIssue,
  OPERATORS_BY_KIND,
  operatorLabel,
  patientFieldOperators,
  SEARCH_OPERATORS,
  searchConditionsSchema,
  searchableItems,
  searchItemPath,
  searchKindOf,
  searchTemplateBodySchema,
  type SearchKind,
} from './search.js';

describe('retrieval operators and kinds', () => {
  it('SRCH-03: every operator the spec names is offered, with its Chinese name', () => {
    expect(SEARCH_OPERATORS.map((o) => o.label)).toEqual([
      '等于',
      '不等于',
      '大于',
      '小于',
      '介于',
      '包含',
      '为空',
      '不为空',
      '属于',
      '缺失原因为',
      '已标记缺失',
    ]);
    expect(operatorLabel('date', 'between')).toBe('介于（日期范围）');
  });

  it.each([
    ['radio', {}, 'choice'],
    ['select', {}, 'choice'],
    ['checkbox', {}, 'multiChoice'],
    ['multiSelect', {}, 'multiChoice'],
    ['int', {}, 'number'],
    ['slider', {}, 'number'],
    ['input', { validate: { type: 'float' } }, 'number'],
    ['input', {}, 'text'],
    ['textarea', {}, 'text'],
    ['date', {}, 'date'],
    ['partialDate', {}, 'date'],
    ['imageUpload', {}, 'file'],
    ['fileUpload', {}, 'file'],
    ['listGroup', {}, null],
    ['section', {}, null],
  ] as const)('SRCH-03: a %s item %j searches as %s', (type, option, kind) => {
    expect(searchKindOf({ type, option })).toBe(kind);
  });

  it('SRCH-03: the ID number is matched whole only (keyed hash)', () => {
    expect(patientFieldOperators('idNumber')).toEqual(['eq', 'empty', 'notEmpty']);
  });

  const cases: Array<[SearchKind, string, string[], string | null]> = [
    ['number', 'gt', ['5'], null],
    ['number', 'gt', ['abc'], '请输入数字'],
    ['number', 'between', ['9', '1'], '范围的起点不能大于终点'],
    ['number', 'contains', ['1'], '该字段不支持“包含”'],
    ['date', 'between', ['2026-01-01', '2026-02-30'], '请输入日期（YYYY-MM-DD）'],
    ['date', 'lt', ['2026-01-01'], null],
    ['text', 'empty', ['x'], '“为空/不为空”不需要值'],
    ['text', 'contains', ['a', 'b'], '请输入一个值'],
    ['choice', 'in', ['1', '9'], '选项不存在'],
    ['multiChoice', 'contains', ['1', '2'], null],
    ['multiChoice', 'gt', ['1'], '该字段不支持“大于”'],
    ['file', 'contains', ['处方'], null],
    ['file', 'contains', ['a', 'b'], '请输入一个值'],
    ['file', 'eq', ['x'], '该字段不支持“等于”'],
    ['file', 'notEmpty', [], null],
  ];
  it.each(cases)('SRCH-03: %s %s %j → %s', (kind, operator, values, issue) => {
    expect(conditionIssue(kind, operator as never, values, OPERATORS_BY_KIND[kind], ['1', '2'])).toBe(issue);
  });

  it('SRCH-03: conditions and templates share one schema; variable names are plain names', () => {
    const ok = searchConditionsSchema.safeParse({
      join: 'or',
      groups: [
        { join: 'and', conditions: [{ kind: 'item', crfId: 1, itemName: 'hr', operator: 'gt', values: ['60'] }] },
      ],
    });
    expect(ok.success).toBe(true);
    const injected = searchConditionsSchema.safeParse({
      groups: [{ conditions: [{ kind: 'item', crfId: 1, itemName: "hr') or 1=1 --", operator: 'eq', values: ['1'] }] }],
    });
    expect(injected.success).toBe(false);
    expect(searchTemplateBodySchema.safeParse({ name: ' ', conditions: {}, columns: [] }).success).toBe(false);
  });
});

describe('searchable items', () => {
  const node = (type: string, name: string, title: string, children: unknown[] = []) => ({
    type,
    name,
    title,
    option: {},
    children,
  });
  it('SRCH-03: list-group and table columns are items with their group (containers inside a row looked into); the group itself is not', () => {
    const definition = {
      children: [
        node('section', 's', '基本', [node('int', 'hr', '心率'), node('imageUpload', 'xray', '片子')]),
        node('listGroup', 'meds', '用药记录', [
          node('input', 'med_name', '药物名称'),
          node('group', 'g', '组', [node('real', 'med_dose', '剂量')]),
        ]),
        node('table', 'labs', '检验', [node('date', 'lab_at', '时间')]),
        node('title', '', '说明'),
      ],
    } as never;
    const items = searchableItems(definition);
    expect(items.map((i) => [i.node.name, i.kind, i.group?.name ?? null, searchItemPath(i)])).toEqual([
      ['hr', 'number', null, '心率'],
      ['xray', 'file', null, '片子'],
      ['med_name', 'text', 'meds', '用药记录 › 药物名称'],
      ['med_dose', 'number', 'meds', '用药记录 › 剂量'],
      ['lab_at', 'date', 'labs', '检验 › 时间'],
    ]);
    expect(operatorLabel('file', 'contains')).toBe('文件名包含');
  });
});
