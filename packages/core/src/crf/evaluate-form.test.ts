import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRF_MSG } from './crf-messages.js';
import {
  blockingErrors,
  evaluateForm,
  formReferencesOf,
  initialValues,
  isFormEditable,
  isMissingRequired,
  type EvaluationContext,
} from './evaluate-form.js';
import type { CrfDefinition } from './crf-definition.schema.js';
import { lintDefinition } from './linter.js';
import { baselineCrf, deepFreeze } from './test/fixtures.js';

// 2024-06-15 02:00 UTC = 10:00 in Beijing, the same calendar day in both zones the tests run in.
const context: EvaluationContext = { now: new Date(Date.UTC(2024, 5, 15, 2, 0, 0)), gender: 'male' };
const definition = deepFreeze(baselineCrf());

const base = {
  sex: '1',
  birth: '1980-03-01',
  visit_date: '2024-06-15',
  weight: '70',
  height: '175',
  sbp: '120',
  dbp: '80',
};

const evaluate = (values: Record<string, unknown>, ctx: EvaluationContext = context) =>
  evaluateForm(definition, deepFreeze({ ...values }), ctx);
const errorsOf = (values: Record<string, unknown>) =>
  evaluate(values).errors.map((e) => `${e.item}${e.row === undefined ? '' : `[${e.row}]`}: ${e.message}`);

describe('evaluateForm', () => {
  it('the fixture passes the linter', () => {
    const result = lintDefinition(baselineCrf());
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('VAL-02/VAL-13: required items answer 请选择选项 or 请输入数据', () => {
    const state = evaluate({});
    expect(state.items.sex!.errors).toEqual(['请选择选项']);
    expect(state.items.birth!.errors).toEqual(['请输入数据']);
    expect(state.items.weight!.errors).toEqual([CRF_MSG.requiredInput]);
    expect(state.valid).toBe(false);
    expect(evaluate(base).valid).toBe(true);
  });

  it('VIS-02/VIS-08: a triggered item shows only for the listed option and its value is cleared when hidden', () => {
    const male = evaluate({ ...base, pregnant: '1', lmp: '2024-05-UK' });
    expect(male.items.pregnant!.visible).toBe(false);
    expect(male.items.pregnant!.required).toBe(false);
    expect(male.values.pregnant).toBeUndefined();
    // The cascade: lmp hangs on pregnant, which is hidden and so cleared.
    expect(male.items.lmp!.visible).toBe(false);
    expect(male.values.lmp).toBeUndefined();
    const female = evaluate({ ...base, sex: '2', pregnant: '1', lmp: '2024-05-UK' });
    expect(female.items.pregnant!.visible).toBe(true);
    expect(female.items.lmp!.visible).toBe(true);
    expect(female.values.lmp).toBe('2024-05-UK');
    expect(evaluate({ ...base, sex: '2' }).items.pregnant!.errors).toEqual(['请选择选项']);
  });

  it('VIS-02: visibility cascades through sections and groups (showIf on a section, trigex on a group)', () => {
    const adult = evaluate({ ...base, disease: ['2'], dm_years: '5' });
    expect(adult.items.history!.visible).toBe(true);
    expect(adult.items.dm_group!.visible).toBe(true);
    expect(adult.values.dm_years).toBe('5');
    const noDiabetes = evaluate({ ...base, disease: ['1'], dm_years: '5' });
    expect(noDiabetes.items.dm_years!.visible).toBe(false);
    expect(noDiabetes.values.dm_years).toBeUndefined();
    const child = evaluate({ ...base, birth: '2015-01-01', disease: ['2'], dm_years: '5', meds: [{ drug: 'x' }] });
    expect(child.items.age!.value).toBe('9');
    for (const key of ['history', 'disease', 'dm_group', 'dm_years', 'meds', 'total_daily']) {
      expect(child.items[key]!.visible).toBe(false);
    }
    expect(child.values.disease).toBeUndefined();
    expect(child.values.meds).toBeUndefined();
  });

  it('calculated fields: age from dates, BMI rounded by the item format; NaN results are ignored', () => {
    const state = evaluate(base);
    expect(state.values.age).toBe('44');
    expect(state.items.age!.calculated).toBe(true);
    expect(state.items.age!.readOnly).toBe(true);
    expect(state.values.bmi).toBe('22.9');
    const missing = evaluate({ ...base, height: '', bmi: '21.0' });
    expect(missing.items.bmi!.calculated).toBe(false);
    expect(missing.values.bmi).toBe('21.0');
  });

  it('WID-15: list-group formulas from crfRules fill each row; undefined results are ignored', () => {
    const state = evaluate({
      ...base,
      meds: JSON.stringify([
        { drug: '二甲双胍', dose: '500', times: '2', ongoing: '1' },
        { drug: '阿司匹林', dose: '100', times: '', ongoing: '0', stop: '2024-01-01' },
        { drug: '他汀', dose: '20', times: '1', ongoing: '1', stop: '2024-01-01' },
      ]),
    });
    const meds = state.values.meds as Array<Record<string, unknown>>;
    expect(meds.map((r) => r.daily)).toEqual(['1000', undefined, '20']);
    // Row-local trigger: the stop date shows only where ongoing is "no"; elsewhere it is cleared.
    expect(meds.map((r) => r.stop)).toEqual([undefined, '2024-01-01', undefined]);
    expect(state.items.meds!.rows![2]!.stop!.visible).toBe(false);
    // Outside the rows a column reads as the list of its values.
    expect(state.values.total_daily).toBe('1020');
  });

  it('row children get their own required messages with the row index', () => {
    expect(errorsOf({ ...base, meds: [{ dose: '1' }, { drug: 'x' }] })).toEqual(['drug[0]: 请输入数据']);
  });

  it('cross-field checks: an error blocks, a warning does not, blanks raise nothing', () => {
    expect(errorsOf({ ...base, sbp: '80', dbp: '90' })).toEqual(['sbp: 收缩压应大于舒张压']);
    const warned = evaluate({ ...base, sbp: '200', dbp: '130' });
    expect(warned.valid).toBe(true);
    expect(warned.warnings).toEqual([{ item: 'dbp', message: '舒张压偏高，请核实', severity: 'warning' }]);
    expect(evaluate({ ...base, sbp: '', dbp: '' }).valid).toBe(true);
  });

  it('VAL-03..VAL-11: item rules by type and option', () => {
    expect(errorsOf({ ...base, weight: '70.25' })).toEqual([`weight: ${CRF_MSG.tooManyDecimals(1)}`]);
    expect(errorsOf({ ...base, weight: '10' })).toEqual([`weight: ${CRF_MSG.belowMin(20)}`]);
    expect(errorsOf({ ...base, sbp: '12.5' })).toEqual([`sbp: ${CRF_MSG.notInteger}`]);
    expect(errorsOf({ ...base, id_no: '110105194912310021' })).toEqual([`id_no: ${CRF_MSG.idcard}`]);
    expect(errorsOf({ ...base, id_no: '11010519491231002x' })).toEqual([]);
    expect(errorsOf({ ...base, phone: '12345678901' })).toEqual(['phone: 手机号填写有误']);
    expect(errorsOf({ ...base, note: '一二三四五六七八九十十一' })).toEqual([`note: ${CRF_MSG.tooLong(10)}`]);
    expect(errorsOf({ ...base, score: '101' })).toEqual([`score: ${CRF_MSG.aboveMax(100)}`]);
    expect(errorsOf({ ...base, center: 'GZ' })).toEqual([`center: ${CRF_MSG.choiceInvalid}`]);
    expect(errorsOf({ ...base, drugs_allergy: 'pen,sulfa' })).toEqual([]);
  });

  it('DATE-03/DATE-06/DATE-09/WID-10: dates, times and sliders', () => {
    expect(errorsOf({ ...base, birth: '2030-01-01' })).toEqual([`birth: ${CRF_MSG.dateInFuture}`]);
    expect(errorsOf({ ...base, birth: '1980-02-30' })).toContain(`birth: ${CRF_MSG.dateInvalid}`);
    expect(errorsOf({ ...base, sample_time: '08:30' })).toEqual([]);
    expect(errorsOf({ ...base, sample_time: '08:30:00' })).toEqual([`sample_time: ${CRF_MSG.timeInvalid}`]);
    expect(errorsOf({ ...base, pain: '7' })).toEqual([]);
    expect(errorsOf({ ...base, pain: 11 })).toEqual([`pain: ${CRF_MSG.sliderOutOfRange(0, 10)}`]);
    expect(
      errorsOf({ ...base, labs: [{ lab_name: 'ALT', lab_value: '35', lab_time: '2024-06-01 08:00:00' }] }),
    ).toEqual([]);
    expect(errorsOf({ ...base, labs: [{ lab_time: '2024-06-UK 08:00:00' }] })).toEqual([
      `lab_time[0]: ${CRF_MSG.dateInvalid}`,
    ]);
  });

  it('VIS-05: the range indicator follows the subject gender', () => {
    expect(evaluate({ ...base, hb: '120' }).items.hb!.range).toBe('low');
    expect(evaluate({ ...base, hb: '120' }, { ...context, gender: 'female' }).items.hb!.range).toBeNull();
    expect(evaluate({ ...base, hb: '160' }, { ...context, gender: 'female' }).items.hb!.range).toBe('high');
    expect(evaluate({ ...base, hb: '160' }, { ...context, gender: null }).items.hb!.range).toBeNull();
  });

  it('WID-08: the addition input shows for the listed option and its text is kept only then', () => {
    const withOther = evaluate({ ...base, disease: ['99'], disease_addition: '痛风' });
    expect(withOther.items.disease!.additionVisible).toBe(true);
    expect(withOther.values.disease_addition).toBe('痛风');
    const without = evaluate({ ...base, disease: ['1'], disease_addition: '痛风' });
    expect(without.items.disease!.additionVisible).toBe(false);
    expect(without.values.disease_addition).toBeUndefined();
  });

  it('VIS-07/VIS-09: operate mode and missing save/submit permissions make every item read-only', () => {
    expect(evaluate(base).items.weight!.readOnly).toBe(false);
    expect(evaluate(base, { ...context, operate: true }).items.weight!.readOnly).toBe(true);
    expect(evaluate(base, { ...context, editable: isFormEditable(['business.crf.view']) }).items.weight!.readOnly).toBe(
      true,
    );
    expect(isFormEditable(['business.crf.save'])).toBe(true);
    expect(isFormEditable(['business.crf.submit'])).toBe(true);
    expect(isFormEditable(['*:*:*'])).toBe(true);
  });

  it('DATE-08/WID-06: defaults for a new form, "now" in the study zone', () => {
    const values = initialValues(definition, context);
    expect(values).toEqual({ visit_date: '2024-06-15' });
    const lateEvening = initialValues(definition, { now: new Date(Date.UTC(2024, 5, 15, 17, 0, 0)) });
    expect(lateEvening.visit_date).toBe('2024-06-16');
  });

  it('CONV-05..CONV-08: stored shapes come back canonical', () => {
    const state = evaluate({
      ...base,
      disease: '["1","2"]',
      drugs_allergy: ['pen'],
      ecg: '["https://oss.example.cn/images/a.jpg"]',
      meds: '[{"drug":"x","dose":2}]',
    });
    expect(state.values.disease).toEqual(['1', '2']);
    expect(state.values.drugs_allergy).toBe('pen');
    expect(JSON.parse(state.values.ecg as string)).toEqual([
      { uploadTime: '', remarks: '', dialogImgUrl: 'https://oss.example.cn/images/a.jpg' },
    ]);
    expect(state.values.meds).toEqual([{ drug: 'x', dose: '2' }]);
  });

  it('never mutates the definition, the values or a previous state', () => {
    const values = deepFreeze({ ...base, meds: [{ drug: 'x', dose: '1', times: '2' }] });
    const first = evaluateForm(definition, values, context);
    const snapshot = JSON.stringify(first);
    const second = evaluateForm(definition, { ...values, weight: '80' }, context, {
      previous: first,
      changed: ['weight'],
    });
    expect(JSON.stringify(first)).toBe(snapshot);
    expect(JSON.stringify(definition)).toBe(JSON.stringify(baselineCrf()));
    expect(second.values.bmi).toBe('26.1');
  });

  it('re-evaluates only what depends on a change and shares the rest', () => {
    const first = evaluate(base);
    const second = evaluateForm(definition, { ...base, weight: '80' }, context, {
      previous: first,
      changed: ['weight'],
    });
    expect(second.items.bmi).not.toBe(first.items.bmi);
    expect(second.items.sex).toBe(first.items.sex);
    expect(second.items.age).toBe(first.items.age);
  });
});

describe('evaluateForm (properties)', () => {
  const field = fc.constantFrom(
    'sex',
    'birth',
    'weight',
    'height',
    'sbp',
    'dbp',
    'pregnant',
    'disease',
    'disease_addition',
    'dm_years',
    'meds',
    'hb',
    'pain',
  );
  const value = fc.oneof(
    fc.constantFrom('', '1', '2', '0', '99', ['99'], '1980-01-01', '2015-05-05', '70', '175', '300', 'abc', '12.5'),
    fc.constant(['1', '2']),
    fc.constant([{ drug: 'x', dose: '2', times: '3', ongoing: '0', stop: '2024-01-01' }]),
  );

  it('an incremental re-evaluation equals a full one after any sequence of edits', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(field, value), { minLength: 1, maxLength: 8 }), (edits) => {
        let values: Record<string, unknown> = { ...base };
        let state = evaluateForm(definition, values, context);
        for (const [name, v] of edits) {
          values = { ...values, [name]: v };
          state = evaluateForm(definition, values, context, { previous: state, changed: [name] });
        }
        const full = evaluateForm(definition, values, context);
        expect(JSON.parse(JSON.stringify(state))).toEqual(JSON.parse(JSON.stringify(full)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('stored extras', () => {
  const def = {
    title: '单位',
    option: {},
    children: [
      { name: 'hb', title: '血红蛋白', type: 'real', option: { units: 'g/L,g/dL' }, children: [] },
      { name: 'pics', title: '图片', type: 'imageUpload', option: { required: 1 }, children: [] },
      {
        name: 'labs',
        title: '检验',
        type: 'listGroup',
        option: {},
        children: [
          { name: 'val', title: '结果', type: 'real', option: { units: 'mmol/L,mg/dL' }, children: [] },
          {
            name: 'kind',
            title: '类型',
            type: 'radio',
            option: { optionsValue: '1,2', optionsText: '常规,其他', addition: '请注明', additionIndex: '1' },
            children: [],
          },
        ],
      },
    ],
  } as unknown as CrfDefinition;

  it('WID-08: keeps the unit chosen in a unit selector, top level and in rows, and drops an unknown unit', () => {
    const state = evaluateForm(
      def,
      {
        hb: '12.5',
        hb_unit: 'g/dL',
        labs: [
          { val: '5', val_unit: 'mg/dL' },
          { val: '6', val_unit: 'furlongs' },
        ],
      },
      { now: new Date('2026-11-22T00:00:00Z') },
    );
    expect(state.values.hb_unit).toBe('g/dL');
    expect((state.values.labs as Array<Record<string, unknown>>)[0]!.val_unit).toBe('mg/dL');
    expect((state.values.labs as Array<Record<string, unknown>>)[1]!.val_unit).toBeUndefined();
  });

  it('keeps the addition text of a row choice whose addition shows', () => {
    const state = evaluateForm(
      def,
      {
        labs: [
          { kind: '2', kind_addition: '外院' },
          { kind: '1', kind_addition: '不该保留' },
        ],
      },
      { now: new Date('2026-11-22T00:00:00Z') },
    );
    const rows = state.values.labs as Array<Record<string, unknown>>;
    expect(rows[0]!.kind_addition).toBe('外院');
    expect(rows[1]!.kind_addition).toBeUndefined();
  });

  it('VAL-01: a required upload holding an empty JSON list is missing', () => {
    const state = evaluateForm(def, { pics: '[]' }, { now: new Date('2026-11-22T00:00:00Z') });
    expect(state.errors.map((e) => e.item)).toContain('pics');
  });
});

describe('clinical feedback', () => {
  const now = new Date(Date.UTC(2024, 5, 15, 2, 0, 0));
  const labs = lintDefinition({
    title: '实验室检查',
    option: {},
    children: [
      {
        name: 'hb',
        title: '血红蛋白',
        type: 'real',
        option: { units: 'g/L,g/dL', refValueMaleMin: 130, refValueMaleMax: 175 },
        children: [],
      },
      {
        name: 'more',
        title: '其他检验',
        type: 'table',
        option: {},
        children: [
          { name: 'item', title: '名称', type: 'input', option: { required: 1 }, children: [] },
          {
            name: 'glu',
            title: '血糖',
            type: 'real',
            option: { units: 'mmol/L,mg/dL', molarMass: 180.16, refValueMaleMin: 3.9, refValueMaleMax: 6.1 },
            children: [],
          },
          { name: 'n', title: '次数', type: 'int', option: {}, children: [] },
        ],
      },
    ],
  }).definition!;

  it('VIS-05: a value in the unit chosen in the selector is judged in that unit, at the top level and in rows', () => {
    const male = { now, gender: 'male' as const };
    expect(evaluateForm(labs, { hb: '13.5', hb_unit: 'g/dL' }, male).items.hb!.range).toBeNull();
    expect(evaluateForm(labs, { hb: '12.5', hb_unit: 'g/dL' }, male).items.hb!.range).toBe('low');
    expect(evaluateForm(labs, { hb: '13.5' }, male).items.hb!.range).toBe('low');
    expect(evaluateForm(labs, { hb: '13.5', hb_unit: 'g/L' }, male).items.hb!.range).toBe('low');
    const rows = evaluateForm(
      labs,
      {
        more: [
          { item: '空腹', glu: '90', glu_unit: 'mg/dL' },
          { item: '餐后', glu: '140', glu_unit: 'mg/dL' },
        ],
      },
      male,
    ).items.more!.rows!;
    expect(rows[0]!.glu!.range).toBeNull();
    expect(rows[1]!.glu!.range).toBe('high');
  });

  it('required cells of table and list-group rows refuse a complete form the way required items do', () => {
    const state = evaluateForm(
      labs,
      { hb: '140', more: [{ item: '', n: '2' }, { item: '  ' }, { item: '尿酸' }] },
      { now },
    );
    expect(state.errors).toEqual([
      { item: 'item', container: 'more', row: 0, message: '请输入数据', severity: 'error' },
      { item: 'item', container: 'more', row: 1, message: '请输入数据', severity: 'error' },
    ]);
    expect(state.errors.every((e) => isMissingRequired(state, e))).toBe(true);
    expect(blockingErrors(state, true)).toEqual(state.errors);
    // A form still in progress may keep blanks, not wrong values.
    expect(blockingErrors(state, false)).toEqual([]);
    const wrong = evaluateForm(labs, { more: [{ item: '', n: 'abc' }] }, { now });
    expect(blockingErrors(wrong, false)).toEqual([
      { item: 'n', container: 'more', row: 0, message: '请输入整数', severity: 'error' },
    ]);
    expect(blockingErrors(wrong, true).map((e) => e.item)).toEqual(['item', 'n']);
  });

  const followUp = lintDefinition({
    title: '术后随访',
    option: {},
    children: [
      { name: 'fu_date', title: '随访日期', type: 'date', option: {}, children: [] },
      {
        name: 'fu_days',
        title: '术后天数',
        type: 'int',
        option: { calc: 'datediff(date(form("手术记录", "op_at")), fu_date, "d")' },
        children: [],
      },
      {
        name: 'note',
        title: '备注',
        type: 'input',
        option: { showIf: 'form("手术记录", "approach") == "open"' },
        children: [],
      },
    ],
  }).definition!;

  it('form(): a calculation reads another form of the same patient, given in the context by title', () => {
    expect(formReferencesOf(followUp)).toEqual([
      { form: '手术记录', item: 'op_at' },
      { form: '手术记录', item: 'approach' },
    ]);
    const forms = { 手术记录: { op_at: '2024-03-01 09:30:00', approach: 'open' } };
    const state = evaluateForm(followUp, { fu_date: '2024-06-01', note: 'x' }, { now, forms });
    expect(state.values.fu_days).toBe('92');
    expect(state.items.note!.visible).toBe(true);
    // Without the other form the calculation cannot be decided: the stored value stays, the note hides.
    const alone = evaluateForm(followUp, { fu_date: '2024-06-01', fu_days: '7', note: 'x' }, { now });
    expect(alone.values.fu_days).toBe('7');
    expect(alone.values.note).toBeUndefined();
    const rowsElsewhere = { 手术记录: { op_at: [{ a: 1 }], approach: 'mis' } };
    expect(evaluateForm(followUp, { fu_date: '2024-06-01' }, { now, forms: rowsElsewhere }).values.fu_days).toBe(
      undefined,
    );
  });
});
