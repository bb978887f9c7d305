import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';

export const item = (
  type: CrfNode['type'],
  name: string,
  title: string,
  option: CrfNode['option'] = {},
  children: CrfNode[] = [],
): CrfNode => ({
  name,
  title,
  type,
  option,
  children,
});

/** A realistic baseline-visit CRF that exercises every rule the engine has. */
export function baselineCrf(): CrfDefinition {
  return {
    id: 'baseline',
    title: '基线访视',
    option: { cols: 2 },
    children: [
      item('section', 'demo', '人口学资料', { crfCols: 2 }, [
        item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女', required: 1 }),
        item('date', 'birth', '出生日期', { required: 1, showStyle: 'pastTime' }),
        item('int', 'age', '年龄', { calc: 'age(birth, visit_date)', units: '岁' }),
        item('date', 'visit_date', '访视日期', { defaultValue: 'now' }),
        item('radio', 'pregnant', '是否妊娠', {
          optionsValue: '1,0',
          optionsText: '是,否',
          trig: 'sex',
          tindex: '1',
          required: 1,
        }),
        item('partialDate', 'lmp', '末次月经', { trig: 'pregnant', tindex: '0' }),
        item('input', 'id_no', '身份证号', { validate: { type: 'idcard' } }),
        item('input', 'phone', '手机号', { validate: { type: 'phone' }, validationErrorMsg: '手机号填写有误' }),
      ]),
      item('section', 'vitals', '生命体征', {}, [
        item('real', 'weight', '体重', { units: 'kg', validate: { min: 20, max: 300, precision: 1 }, required: 1 }),
        item('real', 'height', '身高', { units: 'cm', validate: { min: 50, max: 250 } }),
        item('real', 'bmi', '体质指数', { calc: 'bmi(weight, height)', format: 'precision:1:R', readOnly: 1 }),
        item('int', 'sbp', '收缩压', {
          units: 'mmHg',
          checks: [{ expression: 'sbp > dbp', message: '收缩压应大于舒张压', severity: 'error' }],
        }),
        item('int', 'dbp', '舒张压', {
          units: 'mmHg',
          checks: [{ expression: 'dbp < 120', message: '舒张压偏高，请核实', severity: 'warning' }],
        }),
        item('real', 'hb', '血红蛋白', {
          units: 'g/L',
          refValueMaleMin: 130,
          refValueMaleMax: 175,
          refValueFemaleMin: 115,
          refValueFemaleMax: 150,
        }),
      ]),
      item('section', 'history', '既往史', { showIf: 'age >= 18' }, [
        item('checkbox', 'disease', '既往疾病', {
          optionsValue: '1,2,3,99',
          optionsText: '高血压,糖尿病,冠心病,其他',
          addition: '请注明',
          additionIndex: '3',
        }),
        item('group', 'dm_group', '糖尿病', { trigex: 'disease:1' }, [
          item('int', 'dm_years', '病程（年）', { required: 1 }),
        ]),
        item('listGroup', 'meds', '合并用药', {}, [
          item('input', 'drug', '药物名称', { required: 1 }),
          item('real', 'dose', '单次剂量', { units: 'mg' }),
          item('int', 'times', '每日次数'),
          item('real', 'daily', '日剂量', { readOnly: 1 }),
          item('radio', 'ongoing', '是否仍在使用', { optionsValue: '1,0', optionsText: '是,否' }),
          item('date', 'stop', '停药日期', { trig: 'ongoing', tindex: '1' }),
        ]),
        item('real', 'total_daily', '日剂量合计', { calc: 'sum(daily)' }),
      ]),
      item('section', 'other', '其他', {}, [
        item('slider', 'pain', '疼痛评分', { valueMin: 0, valueMax: 10 }),
        item('time', 'sample_time', '采血时间', { format: 'Hour' }),
        item('imageUpload', 'ecg', '心电图'),
        item('fileUpload', 'report', '报告'),
        item('select', 'center', '中心', { optionsValue: 'BJ,SH', optionsText: '北京,上海' }),
        item('multiSelect', 'drugs_allergy', '过敏药物', { optionsValue: 'pen,sulfa', optionsText: '青霉素,磺胺' }),
        item('textarea', 'note', '备注', { validate: { max: 10 } }),
        item('title', '', '以下由研究者填写', { showStyle: 'color: red' }),
        item('link', '', '知情同意书', { url: '/docs/icf.pdf' }),
        item('card', 'card1', '签名', {}, [item('text', 'investigator', '研究者')]),
        item('table', 'labs', '实验室检查', {}, [
          item('input', 'lab_name', '项目'),
          item('real', 'lab_value', '结果'),
          item('datetime', 'lab_time', '时间'),
        ]),
        item('number', 'score', '评分', { validate: { min: 0, max: 100 } }),
      ]),
    ],
    crfRules: [{ target: 'daily', formula: 'dose * times' }],
  };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export { exampleCrf as everyTypeCrf } from '../example-crf.js';
