import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '@ecrf/core';
import { sectionsOf } from './components/overview-dialog';
import { formatLooseValue, formatValue, formItems, itemTitle, nodesByName } from './crf-values';

const item = (
  type: CrfNode['type'],
  name: string,
  title: string,
  option: CrfNode['option'] = {},
  children: CrfNode[] = [],
): CrfNode => ({ name, title, type, option, children });

const DEFINITION: CrfDefinition = {
  title: '人口学资料',
  option: {},
  children: [
    item('section', 'basic', '基本信息', {}, [
      item('title', '', '请如实填写'),
      item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
      item('checkbox', 'comorbid', '合并症', {
        optionsValue: 'htn,dm,other',
        optionsText: '高血压,糖尿病,其他',
        addition: '请注明',
        additionIndex: '2',
      }),
      item('group', 'smoke_detail', '吸烟情况', {}, [item('real', 'packs', '每日包数', { units: '包' })]),
      item('real', 'hb', '血红蛋白', { units: 'g/L,g/dL' }),
    ]),
    item('listGroup', 'implants', '植入物', {}, [
      item('input', 'implant_name', '名称'),
      item('int', 'implant_qty', '数量'),
    ]),
    item('imageUpload', 'xray', '正侧位片'),
  ],
};

const nodes = nodesByName(DEFINITION);

describe('CRF values as people read them', () => {
  it('the form’s items in order, with their sections; a list group is one item with its columns', () => {
    const items = formItems(DEFINITION);
    expect(items.map((i) => i.name)).toEqual(['sex', 'comorbid', 'packs', 'hb', 'implants', 'xray']);
    expect(items.find((i) => i.name === 'packs')!.path).toEqual(['基本信息', '吸烟情况']);
    expect(items.find((i) => i.name === 'implants')!.columns.map((c) => c.name)).toEqual([
      'implant_name',
      'implant_qty',
    ]);
  });

  it('PRINT-05: choice labels, not codes, with the addition text; the chosen or only unit follows a number', () => {
    expect(formatValue(nodes.get('sex'), '2')).toBe('女');
    expect(formatValue(nodes.get('comorbid'), ['htn', 'other'], { comorbid_addition: '痛风' })).toBe(
      '高血压、其他（痛风）',
    );
    expect(formatValue(nodes.get('packs'), '1.5')).toBe('1.5 包');
    expect(formatValue(nodes.get('hb'), '13.5', { hb_unit: 'g/dL' })).toBe('13.5 g/dL');
    expect(formatValue(nodes.get('hb'), '135')).toBe('135 g/L');
    expect(formatValue(nodes.get('sex'), '')).toBe('');
  });

  it('rows are listed with their columns; uploads are counted', () => {
    expect(
      formatValue(nodes.get('implants'), [
        { implant_name: '椎弓根螺钉', implant_qty: '4' },
        { implant_name: '融合器' },
      ]),
    ).toBe('第 1 行 名称：椎弓根螺钉，数量：4；第 2 行 名称：融合器');
    expect(formatValue(nodes.get('xray'), JSON.stringify([{ uploadTime: '', remarks: '', dialogImgUrl: 'abc' }]))).toBe(
      '1 张图片',
    );
  });

  it('audit rows and queries name items by title; unknown names stay as they are', () => {
    expect(itemTitle(nodes, 'comorbid_addition')).toBe('合并症（请注明）');
    expect(itemTitle(nodes, 'hb_unit')).toBe('血红蛋白（单位）');
    expect(itemTitle(nodes, 'gone')).toBe('gone');
    expect(formatLooseValue(nodes, 'sex', '1')).toBe('男');
    expect(formatLooseValue(nodes, null, { a: 1 })).toBe('{"a":1}');
  });

  it('PRINT-05: the overview’s sections hold their value items; items outside any section form one of their own', () => {
    const sections = sectionsOf({ title: DEFINITION.title, definition: DEFINITION });
    expect(sections.map((s) => s.title)).toEqual(['基本信息', '人口学资料']);
    expect(sections[0]!.items.map((n) => n.name)).toEqual(['sex', 'comorbid', 'packs', 'hb']);
    expect(sections[1]!.items.map((n) => n.name)).toEqual(['implants', 'xray']);
  });
});
