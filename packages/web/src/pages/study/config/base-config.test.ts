import { describe, expect, it } from 'vitest';
import { BASE_FIELD_NAMES } from '../../../api/study.api';
import { normalizeBaseConfig, settleField } from './base-config';

describe('patient base-info config', () => {
  it('SUBJ-05: every field has name, header, display and required, defaults filling what a study never stored', () => {
    const fields = normalizeBaseConfig([{ name: 'mobile', header: '联系电话', display: true, required: true }]);
    expect(fields.map((f) => f.name)).toEqual([...BASE_FIELD_NAMES]);
    expect(fields.find((f) => f.name === 'mobile')).toEqual({
      name: 'mobile',
      header: '联系电话',
      display: true,
      required: true,
    });
    expect(fields.find((f) => f.name === 'gender')).toEqual({
      name: 'gender',
      header: '性别',
      display: true,
      required: true,
    });
    expect(fields.find((f) => f.name === 'birth')).toEqual({
      name: 'birth',
      header: '出生日期',
      display: true,
      required: false,
    });
  });

  it('the ID number (身份证号) is off for a study that never turned it on, and can be shown and required', () => {
    expect(normalizeBaseConfig([]).find((f) => f.name === 'idNumber')).toEqual({
      name: 'idNumber',
      header: '身份证号',
      display: false,
      required: false,
    });
    const on = normalizeBaseConfig([{ name: 'idNumber', header: '身份证号', display: true, required: true }]);
    expect(on.find((f) => f.name === 'idNumber')).toMatchObject({ display: true, required: true });
  });

  it('code and name stay shown and required, age is never required, a hidden field is never required', () => {
    expect(settleField({ name: 'identificationCode', header: '编号', display: false, required: false })).toMatchObject({
      display: true,
      required: true,
    });
    expect(settleField({ name: 'age', header: '年龄', display: true, required: true }).required).toBe(false);
    expect(settleField({ name: 'mobile', header: '手机号', display: false, required: true }).required).toBe(false);
  });

  it('a blank header falls back to the standard label and unknown names are dropped', () => {
    const fields = normalizeBaseConfig([
      { name: 'subjectName', header: '  ', display: true, required: true },
      { name: 'nickname' as never, header: '昵称', display: true, required: false },
    ]);
    expect(fields.find((f) => f.name === 'subjectName')?.header).toBe('患者姓名');
    expect(fields).toHaveLength(BASE_FIELD_NAMES.length);
  });
});
