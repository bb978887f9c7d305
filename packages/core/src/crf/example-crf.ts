import type { CrfDefinition, CrfNode } from './crf-definition.schema.js';

const item = (
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

/**
 * The worked example of docs/crf-format.md §1.3, every item type once: the example sheet of the
 * Excel template and a form to try the renderer on.
 */
export function exampleCrf(): CrfDefinition {
  return {
    title: '随访访视',
    option: { cols: 2 },
    children: [
      item('section', 'vs', '生命体征', { crfCols: 2 }, [
        item('title', '', '以下由研究者填写', { showStyle: 'color: #007587' }),
        item('checkbox', 'history', '既往史', {
          optionsValue: '1,2,3,99',
          optionsText: '糖尿病,高血压,冠心病,其他',
          addition: '请注明',
          additionIndex: '3',
        }),
        item('group', 'dm', '糖尿病', { trigex: 'history:0' }, [item('int', 'dm_years', '病程', { units: '年' })]),
        item('listGroup', 'meds', '合并用药', {}, [
          item('input', 'drug', '药物', { required: 1 }),
          item('real', 'dose', '单次剂量', { units: 'mg' }),
          item('int', 'times', '每日次数'),
          item('real', 'daily', '日剂量', { calc: 'dose * times' }),
        ]),
        item('link', '', '知情同意书', { url: '/docs/icf.pdf' }),
        item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女', required: 1 }),
        item('select', 'center', '中心', { optionsValue: 'BJ,SH', optionsText: '北京,上海' }),
        item('multiSelect', 'allergy', '过敏药物', { optionsValue: 'pen,sulfa', optionsText: '青霉素,磺胺' }),
        item('slider', 'pain', '疼痛评分', { valueMin: 0, valueMax: 10, valueStep: 1 }),
        item('table', 'labs', '实验室检查', {}, [
          item('input', 'lab', '项目'),
          item('real', 'val', '结果', { units: 'U/L' }),
          item('datetime', 'at', '时间'),
        ]),
        item('input', 'phone', '手机号', { validate: { type: 'phone' }, validationErrorMsg: '手机号填写有误' }),
        item('textarea', 'note', '备注', { validate: { max: 500 } }),
        item('int', 'sbp', '收缩压', {
          units: 'mmHg',
          validate: { min: 50, max: 250 },
          checks: [
            { expression: 'sbp > dbp', message: '收缩压应大于舒张压', severity: 'error' },
            { expression: 'sbp < 180', message: '收缩压过高，请核实', severity: 'warning' },
          ],
        }),
        item('int', 'dbp', '舒张压', { units: 'mmHg' }),
        item('real', 'hb', '血红蛋白', {
          units: 'g/L',
          validate: { precision: 1 },
          refValueMaleMin: 130,
          refValueMaleMax: 175,
          refValueFemaleMin: 115,
          refValueFemaleMax: 150,
        }),
        item('text', 'investigator', '研究者'),
        item('real', 'weight', '体重', { units: 'kg' }),
        item('real', 'height', '身高', { units: 'cm' }),
        item('number', 'bmi', '体质指数', { calc: 'bmi(weight, height)', format: 'precision:1:R' }),
        item('date', 'birth', '出生日期', { showStyle: 'pastTime', required: 1 }),
        item('datetime', 'visit_at', '访视时间', { defaultValue: 'now' }),
        item('partialDate', 'lmp', '末次月经', { format: 'yyyy-MM', trig: 'sex', tindex: '1' }),
        item('time', 'sample_time', '采血时间', { format: 'Hour' }),
        item('imageUpload', 'ecg', '心电图'),
        item('videoUpload', 'gait', '步态视频'),
        item('fileUpload', 'report', '检查报告'),
        item('spineCobb', 'spine_cobb', '脊柱Cobb角自动测量', { ptItem: 'cobb_main' }),
        item('real', 'cobb_main', '主弯Cobb角', { units: '°' }),
        item('spineMeasure', 'spine_manual', '脊柱手动测量'),
        item('card', 'sign', '签名', {}, [item('date', 'sign_date', '签名日期', { defaultValue: 'now' })]),
      ]),
    ],
    crfRules: [],
  };
}
