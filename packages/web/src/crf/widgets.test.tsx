import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { form, item, renderCrf, typeInto, blur } from './test/crf-test-utils';

afterEach(cleanup);

const choices = { optionsValue: '1,2,3,99', optionsText: '糖尿病,高血压,冠心病,其他' };

function pickOption(label: string, option: string) {
  fireEvent.mouseDown(screen.getByLabelText(label));
  const options = document.querySelectorAll(`.ant-select-item-option[title="${option}"]`);
  fireEvent.click(options[options.length - 1]!);
}

describe('choice widgets', () => {
  it('WID-05/CONV-05: checkbox choices come from the two comma lists; any stored shape is read, an array is written in option order', () => {
    const { harness } = renderCrf(form([item('checkbox', 'h', '既往史', choices)]), { h: '99,1' });
    expect((screen.getByLabelText('糖尿病') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('其他') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('高血压') as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByLabelText('高血压'));
    expect(harness.last().h).toEqual(['1', '2', '99']);
    cleanup();
    renderCrf(form([item('checkbox', 'h', '既往史', choices)]), { h: '["2"]' });
    expect((screen.getByLabelText('高血压') as HTMLInputElement).checked).toBe(true);
  });

  it('CONV-06: multi-select reads an array and writes a comma string', () => {
    const { harness } = renderCrf(
      form([item('multiSelect', 'a', '过敏药物', { optionsValue: 'pen,sulfa', optionsText: '青霉素,磺胺' })]),
      { a: ['sulfa'] },
    );
    expect(screen.getByText('磺胺')).toBeTruthy();
    pickOption('过敏药物', '青霉素');
    expect(harness.last().a).toBe('pen,sulfa');
  });

  it('radio emits the option value and can be cleared; select picks from the drop-down', () => {
    const { harness } = renderCrf(
      form([
        item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
        item('select', 'center', '中心', { optionsValue: 'BJ,SH', optionsText: '北京,上海' }),
      ]),
    );
    fireEvent.click(screen.getByLabelText('女'));
    expect(harness.last().sex).toBe('2');
    fireEvent.click(screen.getByRole('button', { name: '清除' }));
    expect(harness.last().sex).toBe('');
    pickOption('中心', '上海');
    expect(harness.last().center).toBe('SH');
  });

  it('WID-04: showStyle changes the look: tag buttons, list stacks, pop drops down', () => {
    const { container } = renderCrf(
      form([
        item('radio', 'r1', '按钮单选', { optionsValue: '1,2', optionsText: '是,否', showStyle: 'tag' }),
        item('radio', 'r2', '列表单选', { optionsValue: '1,2', optionsText: '有,无', showStyle: 'list' }),
        item('radio', 'r3', '下拉单选', { optionsValue: '1,2', optionsText: '阳性,阴性', showStyle: 'pop' }),
        item('checkbox', 'c1', '标签多选', { optionsValue: 'a,b', optionsText: '咳嗽,发热', showStyle: 'tag' }),
        item('select', 's1', '展开下拉', { optionsValue: 'a,b', optionsText: '左,右', showStyle: 'open' }),
        item('multiSelect', 'm1', '列表多选', { optionsValue: 'a,b', optionsText: '头痛,乏力', showStyle: 'list' }),
      ]),
    );
    expect(container.querySelectorAll('.ant-radio-button-wrapper')).toHaveLength(2);
    expect(screen.getByLabelText('有').closest('.ant-radio-group')!.className).toContain('vertical');
    expect(screen.getByLabelText('下拉单选').closest('.ant-select')).toBeTruthy();
    const tags = screen.getByText('咳嗽').closest('.crf-choice-tags')!;
    fireEvent.click(within(tags as HTMLElement).getByText('发热'));
    expect(screen.getByText('发热').closest('.ant-tag')!.className).toContain('checked');
    expect(screen.getByLabelText('左').getAttribute('type')).toBe('radio');
    expect(screen.getByLabelText('乏力').getAttribute('type')).toBe('checkbox');
  });

  it('WID-10: slider range from valueMin/valueMax, else the first and last option, else 0-10 step 1; value is a number', () => {
    const { harness } = renderCrf(
      form([
        item('slider', 'p', '疼痛'),
        item('slider', 'q', '评分', { optionsValue: '1,2,3,4,5', optionsText: '1,2,3,4,5' }),
        item('slider', 'r', '刻度', { valueMin: 0, valueMax: 100, valueStep: 5 }),
      ]),
    );
    const handles = screen.getAllByRole('slider');
    expect([handles[0]!.getAttribute('aria-valuemin'), handles[0]!.getAttribute('aria-valuemax')]).toEqual(['0', '10']);
    expect([handles[1]!.getAttribute('aria-valuemin'), handles[1]!.getAttribute('aria-valuemax')]).toEqual(['1', '5']);
    expect([handles[2]!.getAttribute('aria-valuemin'), handles[2]!.getAttribute('aria-valuemax')]).toEqual([
      '0',
      '100',
    ]);
    expect(screen.getAllByText('未选择')).toHaveLength(3);
    fireEvent.keyDown(handles[2]!, { key: 'ArrowRight', keyCode: 39 });
    expect(harness.last().r).toBe(5);
    fireEvent.keyDown(handles[0]!, { key: 'ArrowRight', keyCode: 39 });
    expect(harness.last().p).toBe(1);
  });
});

describe('groups as matrices and per-item read-only', () => {
  it('WID-04: a group with showStyle table shows its same-choice items as a matrix', () => {
    const { harness } = renderCrf(
      form([
        item('group', 'qol', '生活质量', { showStyle: 'table' }, [
          item('radio', 'walk', '行走', { optionsValue: '1,2,3', optionsText: '无困难,有些困难,不能', required: 1 }),
          item('radio', 'care', '自理', { optionsValue: '1,2,3', optionsText: '无困难,有些困难,不能' }),
        ]),
      ]),
    );
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['无困难', '有些困难', '不能']);
    fireEvent.click(screen.getByLabelText('自理 不能'));
    expect(harness.last().care).toBe('3');
    fireEvent.click(screen.getByText('清除'));
    expect(harness.last().care).toBe('');
    expect(screen.getByRole('rowheader', { name: /行走/ }).querySelector('.crf-required')).toBeTruthy();
  });

  it('WID-06: readOnly 1 makes one item read only; Delete clears a chosen radio from the keyboard', () => {
    const { harness } = renderCrf(
      form([
        item('input', 'a', '编号', { readOnly: 1 }),
        item('input', 'b', '备注', { readOnly: '0' }),
        item('radio', 'r', '结果', { optionsValue: '1,2', optionsText: '阴性,阳性' }),
      ]),
      { a: 'S-001', r: '2' },
    );
    expect((screen.getByLabelText('编号') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText('备注') as HTMLInputElement).disabled).toBe(false);
    fireEvent.keyDown(screen.getByLabelText('阳性'), { key: 'Delete' });
    expect(harness.last().r).toBe('');
  });
});

describe('text and number widgets', () => {
  it('input and text areas keep the text as typed', () => {
    const { harness } = renderCrf(
      form([
        item('input', 'a', '单行'),
        item('textarea', 'b', '多行', { validate: { max: 500 } }),
        item('text', 'c', '文本'),
      ]),
    );
    typeInto('单行', ' 阿司匹林 ');
    typeInto('多行', '第一行\n第二行');
    typeInto('文本', '张三');
    expect(harness.last()).toEqual({ a: ' 阿司匹林 ', b: '第一行\n第二行', c: '张三' });
    expect(screen.getByText('7 / 500')).toBeTruthy();
  });

  it('WID-12: a real input keeps only digits and one decimal point', () => {
    const { harness } = renderCrf(form([item('real', 'x', '剂量')]));
    typeInto('剂量', 'a1.2.3b');
    expect(harness.last().x).toBe('1.23');
    typeInto('剂量', '-5');
    expect(harness.last().x).toBe('5');
    expect((screen.getByLabelText('剂量') as HTMLInputElement).value).toBe('5');
  });

  it('WID-11: a number input takes min and max from validate.min/max; typed values are never clamped', () => {
    const { harness } = renderCrf(form([item('number', 'n', '收缩压', { validate: { min: 50, max: 250 } })]));
    const input = screen.getByLabelText('收缩压');
    expect([input.getAttribute('aria-valuemin'), input.getAttribute('aria-valuemax')]).toEqual(['50', '250']);
    expect((input as HTMLInputElement).placeholder).toBe('50 ~ 250');
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(harness.last().n).toBe('50');
    typeInto('收缩压', '300');
    blur('收缩压');
    expect(harness.last().n).toBe('300');
    expect(screen.getByText('不能大于250')).toBeTruthy();
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(harness.last().n).toBe('250');
  });

  it('WID-13: int and real with a format are formatted by it when the user leaves the field', () => {
    const { harness } = renderCrf(
      form([
        item('real', 'r', '比例', { format: 'precision:2:R' }),
        item('int', 'i', '编号', { format: 'interval' }),
        item('real', 'd', '百分比', { format: 'decimal' }),
      ]),
    );
    typeInto('比例', '1.005');
    expect(harness.last().r).toBe('1.005');
    blur('比例');
    expect(harness.last().r).toBe('1.01');
    typeInto('编号', '2024');
    blur('编号');
    expect(harness.last().i).toBe('2-0-2-4');
    typeInto('百分比', '0.1234');
    blur('百分比');
    expect(harness.last().d).toBe('12.34');
  });

  it('WID-14: an input with a format reformats the value by its prefix and bracketed pattern', () => {
    const { harness } = renderCrf(form([item('input', 't', '电话', { format: 'TEL[###-####-####]' })]));
    typeInto('电话', '13812345678');
    blur('电话');
    expect(harness.last().t).toBe('TEL138-1234-5678');
    expect((screen.getByLabelText('电话') as HTMLInputElement).value).toBe('TEL138-1234-5678');
  });
});

describe('display widgets', () => {
  it('a title takes its style string (the product colour as its text shade); a link opens its url in a new window and never a script', () => {
    renderCrf(
      form([
        item('title', '', '以下由研究者填写', { showStyle: 'color: #099dad; background: url(x)' }),
        item('link', '', '知情同意书', { url: '/docs/icf.pdf' }),
        item('link', '', '危险链接', { url: 'javascript:alert(1)' }),
        item('link', '', '伪装链接', { url: 'java\tscript:alert(1)' }),
      ]),
    );
    const title = screen.getByText('以下由研究者填写');
    expect(title.style.color).toBe('#007587');
    expect(title.style.background).toBe('');
    const link = screen.getByText('知情同意书').closest('a')!;
    expect(link.getAttribute('href')).toBe('/docs/icf.pdf');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(screen.getByText('危险链接').closest('a')).toBeNull();
    expect(screen.getByText('伪装链接').closest('a')).toBeNull();
  });
});
