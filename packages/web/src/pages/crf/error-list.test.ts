import { describe, expect, it } from 'vitest';
import { nodesByName, type CrfDefinition } from '@ecrf/core';
import type { ItemIssue } from '../../api/crf.api';
import { formItems } from './crf-values';
import { buildErrorList, errorMessage } from './error-list';

const leaf = (type: string, name: string, title: string, option: Record<string, unknown> = {}) => ({
  type,
  name,
  title,
  option,
  children: [],
});

const DEFINITION = {
  title: '手术记录',
  option: {},
  children: [
    {
      type: 'section',
      name: 'op',
      title: '手术信息',
      option: {},
      children: [
        leaf('datetime', 'op_at', '手术开始时间'),
        leaf('checkbox', 'complication', '术中并发症', {
          optionsValue: 'a,b',
          optionsText: '无,其他',
          addition: '请注明',
        }),
        {
          ...leaf('listGroup', 'implants', '植入物'),
          children: [leaf('input', 'name', '名称'), leaf('int', 'qty', '数量')],
        },
        leaf('int', 'blood_loss', '术中出血量', { units: 'ml' }),
      ],
    },
  ],
} as unknown as CrfDefinition;

const nodes = nodesByName(DEFINITION);
const order = formItems(DEFINITION).map((item) => item.name);
const issue = (itemName: string, message: string, groupName: string | null = null, groupIndex: number | null = null) =>
  ({ itemName, message, groupName, groupIndex }) satisfies ItemIssue;

describe('the items of a refused save', () => {
  it('CRF-28: one entry per item, titled as the nurse reads it, in the order of the form', () => {
    const list = buildErrorList(
      [
        issue('blood_loss', '不能大于10000'),
        issue('qty', '请输入整数', 'implants', 1),
        issue('name', '请输入数据', 'implants', 0),
        issue('op_at', '请输入数据'),
        issue('complication_addition', '请输入数据'),
        issue('op_at', '不能晚于今天'),
        issue('op_at', '请输入数据'),
      ],
      nodes,
      order,
    );
    expect(list).toEqual([
      { key: 'op_at', itemName: 'op_at', title: '手术开始时间', messages: ['请输入数据', '不能晚于今天'] },
      {
        key: 'complication_addition',
        itemName: 'complication',
        title: '术中并发症（请注明）',
        messages: ['请输入数据'],
      },
      { key: 'implants[0].name', itemName: 'implants', title: '植入物 · 第 1 行 · 名称', messages: ['请输入数据'] },
      { key: 'implants[1].qty', itemName: 'implants', title: '植入物 · 第 2 行 · 数量', messages: ['请输入整数'] },
      { key: 'blood_loss', itemName: 'blood_loss', title: '术中出血量', messages: ['不能大于10000'] },
    ]);
  });

  it('a list group with no rows is named by its own title; an item the form does not know comes last, by name', () => {
    const list = buildErrorList([issue('gone', '未知'), issue('implants', '请输入数据')], nodes, order);
    expect(list.map((e) => [e.key, e.title])).toEqual([
      ['implants', '植入物'],
      ['gone', 'gone'],
    ]);
  });

  it.each([
    [[], '表单数据有误'],
    [[issue('op_at', 'x')], '表单数据有误：手术开始时间'],
    [
      [issue('op_at', 'x'), issue('blood_loss', 'y'), issue('name', 'z', 'implants', 0)],
      '表单数据有误：手术开始时间、植入物 · 第 1 行 · 名称、术中出血量',
    ],
    [
      [
        issue('op_at', 'x'),
        issue('blood_loss', 'y'),
        issue('name', 'z', 'implants', 0),
        issue('qty', 'w', 'implants', 0),
      ],
      '表单数据有误：手术开始时间、植入物 · 第 1 行 · 名称、植入物 · 第 1 行 · 数量 等 4 项',
    ],
  ])('the message names the first items, never the message alone (%#)', (issues, expected) => {
    expect(errorMessage('表单数据有误', buildErrorList(issues, nodes, order))).toBe(expected);
  });
});
