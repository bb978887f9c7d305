import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { exampleCrf } from '@ecrf/core';
import { blur, form, item, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

const meds = (option = {}, rules = true) =>
  form(
    [
      item('listGroup', 'meds', '合并用药', option, [
        item('input', 'drug', '药物', { required: 1 }),
        item('real', 'dose', '单次剂量', { units: 'mg' }),
        item('int', 'times', '每日次数'),
        item('real', 'daily', '日剂量'),
      ]),
    ],
    rules ? { crfRules: [{ target: 'daily', formula: 'dose * times' }] } : {},
  );

const confirmRemove = (index: number) => {
  fireEvent.click(screen.getByRole('button', { name: `删除第 ${index} 行` }));
  const ok = [...document.querySelectorAll('.ant-popconfirm .ant-btn-primary')].at(-1) as HTMLElement;
  fireEvent.click(ok);
};

describe('list group', () => {
  it('rows are added and removed; each row holds the child items; removal asks first', () => {
    const { harness } = renderCrf(meds());
    expect(screen.getByText('暂无数据')).toBeTruthy();
    fireEvent.click(screen.getByText('添加一行'));
    fireEvent.click(screen.getByText('添加一行'));
    expect(harness.last().meds).toEqual([{}, {}]);
    typeInto(screen.getAllByLabelText('药物')[0]!, '二甲双胍');
    typeInto(screen.getAllByLabelText('药物')[1]!, '阿司匹林');
    expect(harness.last().meds).toEqual([{ drug: '二甲双胍' }, { drug: '阿司匹林' }]);
    confirmRemove(1);
    expect(harness.last().meds).toEqual([{ drug: '阿司匹林' }]);
    expect(screen.getAllByLabelText('药物')).toHaveLength(1);
    expect((screen.getByLabelText('药物') as HTMLInputElement).value).toBe('阿司匹林');
  });

  it('WID-15: crfRules fill a column row by row; NaN or undefined results are ignored', () => {
    const { harness } = renderCrf(meds(), { meds: [{ drug: 'a', dose: '5', daily: '7' }] });
    const daily = () => (screen.getByLabelText('日剂量') as HTMLInputElement).value;
    expect(daily()).toBe('7');
    typeInto('每日次数', '3');
    expect(daily()).toBe('15');
    expect((screen.getByLabelText('日剂量') as HTMLInputElement).disabled).toBe(true);
    expect(harness.last().meds).toEqual([{ drug: 'a', dose: '5', times: '3', daily: '15' }]);
    typeInto('每日次数', '');
    expect(daily()).toBe('15');
  });

  it('required cells show their message under the cell once touched', () => {
    renderCrf(meds(), { meds: [{}, {}] });
    expect(screen.queryByText('请输入数据')).toBeNull();
    blur(screen.getAllByLabelText('药物')[1]!);
    expect(screen.getAllByText('请输入数据')).toHaveLength(1);
    expect(screen.getAllByLabelText('药物')[1]!.closest('.crf-field')!.textContent).toContain('请输入数据');
  });

  it('a touched flag moves with its row when an earlier row is removed', () => {
    renderCrf(meds(), { meds: [{}, {}] });
    blur(screen.getAllByLabelText('药物')[1]!);
    confirmRemove(1);
    expect(screen.getAllByLabelText('药物')).toHaveLength(1);
    expect(screen.getByText('请输入数据')).toBeTruthy();
  });

  it('a required list group without rows says 请输入数据 once touched', () => {
    renderCrf(meds({ required: 1 }), { meds: [{ drug: 'x' }] });
    confirmRemove(1);
    expect(screen.getByText('请输入数据')).toBeTruthy();
  });

  it('CONV-08: rows stored as a JSON string are read; an array of row objects keyed by child name is written, unknown keys dropped', () => {
    const { harness } = renderCrf(meds({}, false), { meds: '[{"drug":"二甲双胍","dose":500,"old":"x"}]' });
    expect((screen.getByLabelText('单次剂量') as HTMLInputElement).value).toBe('500');
    typeInto('每日次数', '2');
    expect(harness.last().meds).toEqual([{ drug: '二甲双胍', dose: '500', times: '2' }]);
  });

  it('a row child with several units gets a selector whose choice stays with the row', () => {
    const definition = form([
      item('listGroup', 'g', '血糖', {}, [item('real', 'v', '数值', { units: 'mmol/L,mg/dL' })]),
    ]);
    const { harness } = renderCrf(definition, { g: [{ v: '5' }] });
    fireEvent.mouseDown(screen.getByLabelText('数值单位'));
    fireEvent.click(screen.getByTitle('mg/dL'));
    expect(harness.last().g).toEqual([{ v: '5', v_unit: 'mg/dL' }]);
    typeInto('数值', '90');
    expect(harness.last().g).toEqual([{ v: '90', v_unit: 'mg/dL' }]);
  });
});

describe('table', () => {
  const labs = () => exampleCrf().children[0]!.children.find((n) => n.name === 'labs')!;

  it('WID-16/WID-17/WID-18: column minimum widths are 180 for dates, 150 + 16 per unit character for numbers, by label otherwise', () => {
    const definition = form([
      item('table', 't', '检查', {}, [
        item('input', 'lab', '项目'),
        item('real', 'val', '结果', { units: 'U/L' }),
        item('datetime', 'at', '时间'),
        item('text', 'n', '说明', { units: 'mmol/L,mg' }),
        item('select', 'ab', '是否异常且有临床意义', { optionsValue: '1,0', optionsText: '是,否' }),
      ]),
    ]);
    const { container } = renderCrf(definition, { t: [{}] });
    const widths = [...container.querySelectorAll('colgroup col')].map((col) => (col as HTMLElement).style.minWidth);
    expect(widths).toEqual(['', '150px', '198px', '180px', '246px', '200px', '']);
  });

  it('CONV-08: cells edit their row; rows are added and removed', () => {
    const { harness } = renderCrf(form([labs()]), { labs: [{ lab: 'ALT', val: '35', at: '2024-06-01 08:00:00' }] });
    expect(screen.getByRole('columnheader', { name: '结果' })).toBeTruthy();
    typeInto('结果', '40');
    expect(harness.last().labs).toEqual([{ lab: 'ALT', val: '40', at: '2024-06-01 08:00:00' }]);
    fireEvent.click(screen.getByText('添加一行'));
    typeInto(screen.getAllByLabelText('项目')[1]!, 'AST');
    expect(harness.last().labs).toEqual([{ lab: 'ALT', val: '40', at: '2024-06-01 08:00:00' }, { lab: 'AST' }]);
    confirmRemove(1);
    expect(harness.last().labs).toEqual([{ lab: 'AST' }]);
  });
});
