import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIssue } from './compile-form.js';
import type { CrfDefinition, CrfNode } from './crf-definition.schema.js';
import { evaluateForm } from './evaluate-form.js';
import { lintDefinition } from './linter.js';
import { genderOptionValue, patientPrefill, PATIENT_FIELDS } from './patient-prefill.js';
import { item } from './test/fixtures.js';

const crf = (...children: CrfNode[]): CrfDefinition => ({ title: '人口学资料', option: {}, children });
const lintErrors = (definition: CrfDefinition) => lintDefinition(definition).errors.map(formatIssue);

const demographics = crf(
  item('section', 'basic', '基本信息', {}, [
    item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女', patientField: 'gender' }),
    item('date', 'birth', '出生日期', { patientField: 'birth' }),
    item('partialDate', 'birth_month', '出生年月', { format: 'yyyy-MM', patientField: 'birth' }),
    item('int', 'age_now', '年龄', { patientField: 'age' }),
    item('input', 'initials', '姓名', { patientField: 'subjectName' }),
    item('input', 'code', '编号', { patientField: 'identificationCode' }),
  ]),
  item('listGroup', 'family', '家族史', {}, [item('input', 'who', '亲属')]),
);

describe('patient fields prefill a new form', () => {
  it('the demographics form with patient fields passes the linter', () => {
    expect(lintErrors(demographics)).toEqual([]);
  });

  it('maps the patient record onto the items that declare a patientField, gender by the option labels', () => {
    const male = { gender: 1, birth: '1958-03-02', age: 66, subjectName: '王五', identificationCode: 'LSS-0001' };
    expect(patientPrefill(demographics, male)).toEqual({
      sex: '1',
      birth: '1958-03-02',
      birth_month: '1958-03',
      age_now: '66',
      initials: '王五',
      code: 'LSS-0001',
    });
    expect(patientPrefill(demographics, { gender: 0 })).toEqual({ sex: '2' });
    expect(patientPrefill(demographics, { gender: '0' })).toEqual({ sex: '2' });
  });

  it('leaves out what the patient record does not hold or the caller may not see', () => {
    expect(patientPrefill(demographics, {})).toEqual({});
    expect(patientPrefill(demographics, { gender: null, birth: '', subjectName: undefined })).toEqual({});
    // A masked birth date (1958-**-**) is no date: it is never written into the form.
    expect(patientPrefill(demographics, { birth: '1958-**-**' })).toEqual({});
    expect(patientPrefill(demographics, { gender: 2 })).toEqual({});
  });

  it('SUBJ-04/VIS-06: one gender mapping whatever codes the form uses (1/2, 0/1 as in the forms context, M/F)', () => {
    const codes: Array<[string, string, string, string]> = [
      ['1,2', '男,女', '1', '2'],
      ['0,1', '男,女', '0', '1'],
      ['1,0', '男性,女性', '1', '0'],
      ['F,M', '女,男', 'M', 'F'],
    ];
    for (const [optionsValue, optionsText, male, female] of codes) {
      const node = item('select', 'sex', '性别', { optionsValue, optionsText, patientField: 'gender' });
      expect(genderOptionValue(node, 'male')).toBe(male);
      expect(genderOptionValue(node, 'female')).toBe(female);
      expect(patientPrefill(crf(node), { gender: 1 })).toEqual({ sex: male });
      expect(patientPrefill(crf(node), { gender: 0 })).toEqual({ sex: female });
    }
  });

  it('property: every prefilled value passes the form’s own rules and is kept as it is', () => {
    const linted = lintDefinition(demographics).definition!;
    const birth = fc
      .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2020-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.constantFrom(0, 1), birth, fc.integer({ min: 0, max: 120 }), (gender, b, age) => {
        const values = patientPrefill(linted, { gender, birth: b, age });
        expect(Object.keys(values).sort()).toEqual(['age_now', 'birth', 'birth_month', 'sex']);
        const state = evaluateForm(linted, values, { now: new Date('2024-06-15T02:00:00Z') });
        for (const name of Object.keys(values)) expect(state.items[name]!.errors).toEqual([]);
        expect(state.values).toMatchObject(values);
      }),
    );
  });

  it.each<[string, CrfNode, RegExp]>([
    ['an unknown field', item('input', 'x', 'X', { patientField: 'address' }), /patientField 无效：address（可用 /],
    [
      'gender on a text item',
      item('input', 'x', 'X', { patientField: 'gender' }),
      /patientField gender 不能用于 input 类型的题目/,
    ],
    [
      'gender without 男 and 女 options',
      item('radio', 'x', 'X', { optionsValue: 'M,F', optionsText: 'Male,Female', patientField: 'gender' }),
      /patientField gender 需要文字为“男”和“女”的选项/,
    ],
    ['birth on a datetime', item('datetime', 'x', 'X', { patientField: 'birth' }), /不能用于 datetime 类型/],
    [
      'a calculated item',
      item('int', 'x', 'X', { patientField: 'age', calc: '1 + 1' }),
      /计算题目不能使用 patientField/,
    ],
  ])('refuses %s at upload', (_label, node, message) => {
    expect(lintErrors(crf(node)).join('\n')).toMatch(message);
  });

  it('refuses a patientField inside list-group or table rows', () => {
    const rows = crf(item('table', 't', '表', {}, [item('input', 'x', 'X', { patientField: 'subjectName' })]));
    expect(lintErrors(rows)).toEqual([
      'children[0].children[0].option.patientField（x）：列表组或表格中的题目不能使用 patientField',
    ]);
  });

  it('names the fields it knows', () => {
    expect(PATIENT_FIELDS).toEqual([
      'identificationCode',
      'subjectName',
      'gender',
      'birth',
      'age',
      'mobile',
      'idNumber',
    ]);
  });
});
