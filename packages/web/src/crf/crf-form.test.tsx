import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { exampleCrf, genderFromFormContext, initialValues } from '@ecrf/core';
import { renderWithProviders } from '../test/render';
import { CrfForm } from './crf-form';
import { blur, form, item, NOW, renderCrf, typeInto } from './test/crf-test-utils';

afterEach(cleanup);

const errorsUnder = (label: string) => {
  const field = screen.getByLabelText(label).closest('.crf-field')!;
  return [...field.querySelectorAll('.crf-field-error')].map((el) => el.textContent);
};

describe('CrfForm: the example form', () => {
  it('WID-02: the example CRF of core renders every item type completely and without errors', () => {
    const definition = exampleCrf();
    const { container, harness } = renderCrf(definition, initialValues(definition, { now: NOW }));
    for (const text of ['生命体征', '以下由研究者填写', '合并用药', '知情同意书', '实验室检查', '签名']) {
      expect(screen.getAllByText(text).length).toBeGreaterThan(0);
    }
    for (const label of [
      '既往史',
      '性别',
      '中心',
      '过敏药物',
      '疼痛评分',
      '手机号',
      '备注',
      '收缩压',
      '舒张压',
      '血红蛋白',
      '研究者',
      '体重',
      '身高',
      '体质指数',
      '出生日期',
      '访视时间',
      '采血时间',
      '心电图',
      '步态视频',
      '检查报告',
      '签名日期',
    ]) {
      expect(screen.getAllByText(label).length, label).toBeGreaterThan(0);
    }
    // The group 糖尿病 and 末次月经 wait for their triggers.
    expect(screen.queryByText('病程')).toBeNull();
    expect(screen.queryByText('末次月经')).toBeNull();
    expect(container.querySelectorAll('.crf-field-error')).toHaveLength(0);
    expect(harness.state()?.items.visit_at?.value).toBe('2024-06-15 10:30:00');
  });

  it('WID-19: spans on the 24-column grid come from cols over the section crfCols', () => {
    const definition = form([
      item('section', 's', '分区', { crfCols: 3 }, [
        item('input', 'a', '甲'),
        item('input', 'b', '乙', { cols: 2 }),
        item('title', '', '说明'),
      ]),
    ]);
    renderCrf(definition);
    const colOf = (label: string) => screen.getByLabelText(label).closest('.ant-col')!;
    expect(colOf('甲').className).toContain('ant-col-8');
    expect(colOf('乙').className).toContain('ant-col-16');
    expect(screen.getByText('说明').closest('.ant-col')!.className).toContain('ant-col-24');
    expect(screen.getByText('分区').closest('.ant-col')!.className).toContain('ant-col-24');
  });

  it('WID-03: display options title, description, placeholder, width and rightItemText', () => {
    renderCrf(
      form([
        item('input', 'a', '', {
          title: '显示标题',
          description: '按病历填写',
          placeholder: '如：阿司匹林',
          width: 240,
          rightItemText: '次/日',
        }),
      ]),
    );
    const input = screen.getByLabelText('显示标题') as HTMLInputElement;
    expect(input.placeholder).toBe('如：阿司匹林');
    expect(screen.getByText('按病历填写')).toBeTruthy();
    expect(screen.getByText('次/日')).toBeTruthy();
    expect((input.closest('.crf-field-control') as HTMLElement).style.width).toBe('240px');
  });
});

describe('CrfForm: required marks and messages (the engine words them)', () => {
  it('VAL-02/VAL-12: a required blank item shows 请输入数据 or 请选择选项 after blur, not before', () => {
    renderCrf(
      form([
        item('input', 'name', '姓名', { required: 1 }),
        item('select', 'center', '中心', { required: '1', optionsValue: 'BJ,SH', optionsText: '北京,上海' }),
      ]),
    );
    expect(screen.getByText('姓名').parentElement!.querySelector('.crf-required')).toBeTruthy();
    expect(screen.queryByText('请输入数据')).toBeNull();
    blur('姓名');
    expect(errorsUnder('姓名')).toEqual(['请输入数据']);
    const select = screen.getByLabelText('中心');
    fireEvent.blur(select);
    expect(screen.getByText('请选择选项')).toBeTruthy();
  });

  it('VAL-03/VAL-04/VAL-05/VAL-09/VAL-12: typed values are judged on change with the exact messages', () => {
    renderCrf(
      form([
        item('int', 'n', '次数', { validate: { min: 1, max: 10 } }),
        item('number', 'x', '剂量', { validate: { precision: 1 } }),
        item('textarea', 't', '备注', { validate: { max: 5 } }),
      ]),
    );
    typeInto('次数', '1.5');
    expect(errorsUnder('次数')).toEqual(['请输入整数']);
    typeInto('次数', '11');
    expect(errorsUnder('次数')).toEqual(['不能大于10']);
    typeInto('次数', '-3');
    expect(errorsUnder('次数')).toEqual(['不能小于1']);
    typeInto('剂量', '1.25');
    expect(errorsUnder('剂量')).toEqual(['最多保留1位小数']);
    typeInto('备注', '一二三四五六');
    expect(errorsUnder('备注')).toEqual(['长度不能超过5个字符']);
  });

  it('VAL-06/VAL-07/VAL-08/VAL-10/VAL-11: email, phone, ID card, pattern and the item own message', () => {
    renderCrf(
      form([
        item('input', 'mail', '邮箱', { validate: { type: 'email' } }),
        item('input', 'tel', '电话', { validate: { type: 'phone' } }),
        item('input', 'id', '身份证', { validate: { type: 'idcard' } }),
        item('input', 'code', '编码', { validationEx: '^[A-Z]{2}\\d{3}$' }),
        item('input', 'tel2', '手机号', { validate: { type: 'phone' }, validationErrorMsg: '手机号填写有误' }),
      ]),
    );
    typeInto('邮箱', 'a@b');
    expect(errorsUnder('邮箱')).toEqual(['请输入正确的邮箱地址']);
    typeInto('电话', '12800138000');
    expect(errorsUnder('电话')).toEqual(['请输入正确的手机号码']);
    typeInto('电话', '13800138000');
    expect(errorsUnder('电话')).toEqual([]);
    typeInto('身份证', '11010519491231002Y');
    expect(errorsUnder('身份证')).toEqual(['请输入正确的身份证号码']);
    typeInto('身份证', '11010519491231002x');
    expect(errorsUnder('身份证')).toEqual([]);
    typeInto('编码', 'ab123');
    expect(errorsUnder('编码')).toEqual(['格式不正确']);
    typeInto('手机号', '123');
    expect(errorsUnder('手机号')).toEqual(['手机号填写有误']);
  });

  it('cross-field checks: an error blocks, a warning shows in its own colour', () => {
    const definition = exampleCrf();
    const { harness } = renderCrf(definition, {});
    typeInto('舒张压', '90');
    typeInto('收缩压', '80');
    expect(errorsUnder('收缩压')).toEqual(['收缩压应大于舒张压']);
    typeInto('收缩压', '190');
    expect(errorsUnder('收缩压')).toEqual([]);
    const warning = screen.getByLabelText('收缩压').closest('.crf-field')!.querySelector('.crf-field-warning');
    expect(warning?.textContent).toBe('收缩压过高，请核实');
    expect(harness.state()?.warnings.map((w) => w.message)).toContain('收缩压过高，请核实');
  });

  it('VAL-15: server messages show under their items, rows included, until the item is edited', () => {
    const definition = form([
      item('input', 'a', '甲'),
      item('listGroup', 'meds', '用药', {}, [item('input', 'drug', '药物')]),
    ]);
    renderCrf(
      definition,
      { meds: [{ drug: 'x' }] },
      {
        errors: [
          { item: 'a', message: '服务器：甲有误', severity: 'error' },
          { item: 'drug', container: 'meds', row: 0, message: '服务器：药物有误', severity: 'error' },
        ],
      },
    );
    expect(screen.getByText('服务器：甲有误')).toBeTruthy();
    expect(screen.getByText('服务器：药物有误')).toBeTruthy();
    typeInto('甲', '新值');
    expect(screen.queryByText('服务器：甲有误')).toBeNull();
  });

  it('showAllErrors shows every message of the engine at once (after a refused submit)', () => {
    renderCrf(
      form([
        item('input', 'a', '甲', { required: 1 }),
        item('radio', 'b', '乙', { required: 1, optionsValue: '1,2', optionsText: '是,否' }),
      ]),
      {},
      { showAllErrors: true },
    );
    expect(screen.getByText('请输入数据')).toBeTruthy();
    expect(screen.getByText('请选择选项')).toBeTruthy();
  });
});

describe('CrfForm: calculations, ranges, units, additions', () => {
  it('a calculated item shows the engine result read-only and follows its inputs', () => {
    renderCrf(exampleCrf(), {});
    typeInto('体重', '70');
    typeInto('身高', '175');
    const bmi = screen.getByLabelText('体质指数') as HTMLInputElement;
    expect(bmi.value).toBe('22.9');
    expect(bmi.disabled).toBe(true);
    expect(screen.getAllByText('自动计算').length).toBeGreaterThan(0);
  });

  it('VIS-05/VIS-06: the low/high mark follows the range of the subject gender (form context 1 = female)', () => {
    const definition = form([
      item('real', 'hb', '血红蛋白', {
        units: 'g/L',
        refValueMaleMin: 130,
        refValueMaleMax: 175,
        refValueFemaleMin: 115,
        refValueFemaleMax: 150,
      }),
    ]);
    renderCrf(definition, { hb: '120' }, { context: { now: NOW, gender: genderFromFormContext(1) } });
    expect(screen.queryByText(/偏低|偏高/)).toBeNull();
    typeInto('血红蛋白', '110');
    expect(screen.getByText('↓ 偏低')).toBeTruthy();
    typeInto('血红蛋白', '151');
    expect(screen.getByText('↑ 偏高')).toBeTruthy();
    cleanup();
    renderCrf(definition, { hb: '120' }, { context: { now: NOW, gender: genderFromFormContext(0) } });
    expect(screen.getByText('↓ 偏低')).toBeTruthy();
  });

  it('VIS-05: the mark has a tooltip giving the range', async () => {
    renderCrf(
      form([item('real', 'hb', '血红蛋白', { units: 'g/L', refValueFemaleMin: 115, refValueFemaleMax: 150 })]),
      { hb: '160' },
      { context: { now: NOW, gender: 'female' } },
    );
    fireEvent.mouseEnter(screen.getByText('↑ 偏高'));
    expect(await screen.findByText('参考范围：115 ~ 150 g/L')).toBeTruthy();
  });

  it('VIS-05: a value in the unit chosen in the selector is judged, and its range given, in that unit', async () => {
    const definition = form([
      item('real', 'hb', '血红蛋白', { units: 'g/L,g/dL', refValueMaleMin: 130, refValueMaleMax: 175 }),
    ]);
    renderCrf(definition, { hb: '13.5', hb_unit: 'g/dL' }, { context: { now: NOW, gender: 'male' } });
    expect(screen.queryByText(/偏低|偏高/)).toBeNull();
    typeInto('血红蛋白', '12.5');
    fireEvent.mouseEnter(screen.getByText('↓ 偏低'));
    expect(await screen.findByText('参考范围：13 ~ 17.5 g/dL')).toBeTruthy();
  });

  it('form(): a calculation reads the other forms of the patient handed over in the context', () => {
    const definition = form([
      item('date', 'fu_date', '随访日期'),
      item('int', 'fu_days', '术后天数', { calc: 'datediff(date(form("手术记录", "op_at")), fu_date, "d")' }),
    ]);
    const forms = { 手术记录: { op_at: '2024-03-01 09:30:00' } };
    const { harness } = renderCrf(definition, { fu_date: '2024-06-01' }, { context: { now: NOW, forms } });
    expect(harness.state()?.items.fu_days?.value).toBe('92');
    expect((screen.getByLabelText('术后天数') as HTMLInputElement).value).toBe('92');
  });

  it('WID-06/WID-07: one unit is shown beside the value; several give a unit selector whose choice is kept', () => {
    const { harness } = renderCrf(
      form([item('int', 'w', '体重', { units: 'kg' }), item('real', 'g', '血糖', { units: 'mmol/L,mg/dL' })]),
    );
    expect(screen.getByText('kg')).toBeTruthy();
    const selector = screen.getByLabelText('血糖单位');
    expect(selector.closest('.ant-select')!.textContent).toContain('mmol/L');
    fireEvent.mouseDown(selector);
    fireEvent.click(screen.getByTitle('mg/dL'));
    expect(harness.last().g_unit).toBe('mg/dL');
    typeInto('血糖', '90');
    expect(harness.last()).toMatchObject({ g: '90', g_unit: 'mg/dL' });
  });

  it('WID-08: the addition box shows while an option of additionIndex is chosen, stored as <name>_addition', () => {
    const { harness } = renderCrf(exampleCrf(), {});
    expect(screen.queryByLabelText('请注明')).toBeNull();
    fireEvent.click(screen.getByLabelText('其他'));
    typeInto('请注明', '痛风');
    expect(harness.last()).toMatchObject({ history: ['99'], history_addition: '痛风' });
    fireEvent.click(screen.getByLabelText('其他'));
    expect(screen.queryByLabelText('请注明')).toBeNull();
    expect(harness.last().history_addition).toBeUndefined();
  });
});

describe('CrfForm: read-only', () => {
  it('VIS-07/VIS-09: readOnly (operate mode, or no business.crf.save/submit) disables every widget', () => {
    const definition = exampleCrf();
    const { container } = renderCrf(
      definition,
      { meds: [{ drug: 'a' }], labs: [{ lab: 'ALT' }], sex: '2', ecg: '["https://x/y.jpg"]', report: 'k1' },
      { readOnly: true },
    );
    const inputs = [...container.querySelectorAll('input, textarea')].filter(
      (el) => !(el as HTMLElement).closest('.crf-date-anchor'),
    );
    expect(inputs.length).toBeGreaterThan(20);
    for (const el of inputs) {
      expect((el as HTMLInputElement).disabled, (el as HTMLInputElement).outerHTML.slice(0, 80)).toBe(true);
    }
    expect(screen.queryByText('添加一行')).toBeNull();
    expect(screen.queryByText('上传图片')).toBeNull();
    expect(screen.queryByText('清除')).toBeNull();
    expect(screen.queryByLabelText('删除')).toBeNull();
  });

  it('VIS-07: operate mode in the context does the same', () => {
    renderCrf(form([item('input', 'a', '甲')]), {}, { context: { now: NOW, operate: true } });
    expect((screen.getByLabelText('甲') as HTMLInputElement).disabled).toBe(true);
  });

  it('a definition with errors shows the engine message instead of crashing', () => {
    renderCrf(form([item('input', 'a', '甲', { calc: 'nope +' })]));
    expect(screen.getByRole('alert').textContent).toContain('CRF 定义有');
  });

  it('values handed in later replace the working copy; the working copy survives a parent that does not hand values back', () => {
    const definition = form([
      item('input', 'a', '甲'),
      item('int', 'b', '乙', { calc: 'c + 1' }),
      item('int', 'c', '丙'),
    ]);
    const onChange = vi.fn();
    const view = renderWithProviders(
      <CrfForm definition={definition} values={{ a: '一' }} onChange={onChange} context={{ now: NOW }} />,
    );
    typeInto('甲', '二');
    expect(onChange).toHaveBeenLastCalledWith({ a: '二' }, 'a');
    expect((screen.getByLabelText('甲') as HTMLInputElement).value).toBe('二');
    view.rerender(
      <CrfForm definition={definition} values={{ a: '三', c: '4' }} onChange={onChange} context={{ now: NOW }} />,
    );
    expect((screen.getByLabelText('甲') as HTMLInputElement).value).toBe('三');
    expect((screen.getByLabelText('乙') as HTMLInputElement).value).toBe('5');
  });
});
