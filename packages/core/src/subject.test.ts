import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_CONFIG } from './study.js';
import { ageFromBirth, latestBirthDate, subjectFieldErrors } from './subject.js';

const opts = { baseConfig: DEFAULT_BASE_CONFIG, today: '2026-11-22', serialNumbers: false, diseaseCodes: ['LSS'] };
const valid = { identificationCode: 'P001', subjectName: '张三', gender: 1, diseaseCode: 'LSS', birth: '1960-05-01', mobile: '13912345678' };

describe('patient rules', () => {
  it('SUBJ-11/SUBJ-13/SUBJ-14/SUBJ-15/SUBJ-16: required fields and mobile with the spec messages', () => {
    expect(subjectFieldErrors(valid, opts)).toEqual({});
    expect(subjectFieldErrors({}, opts)).toEqual({
      identificationCode: '请输入编号',
      subjectName: '请输入患者姓名',
      gender: '请选择患者性别',
      diseaseCode: '请选择病种',
    });
    expect(subjectFieldErrors({ ...valid, mobile: '12912345678' }, opts).mobile).toBe('请输入11位手机号码');
    expect(subjectFieldErrors({ ...valid, diseaseCode: 'XXX' }, opts).diseaseCode).toBe('请选择病种');
  });

  it('SUBJ-09: with serial numbers the code is not asked for', () => {
    expect(subjectFieldErrors({ ...valid, identificationCode: '' }, { ...opts, serialNumbers: true })).toEqual({});
  });

  it('SUBJ-17: birth no later than today minus 10 days', () => {
    expect(latestBirthDate('2026-11-22')).toBe('2026-11-12');
    expect(latestBirthDate('2026-03-05')).toBe('2026-02-23');
    expect(subjectFieldErrors({ ...valid, birth: '2026-11-12' }, opts)).toEqual({});
    expect(subjectFieldErrors({ ...valid, birth: '2026-11-13' }, opts).birth).toBe('出生日期不能晚于当前日期前10天');
  });

  it('SUBJ-18: age in whole years from birth', () => {
    expect(ageFromBirth('1960-11-22', '2026-11-22')).toBe(66);
    expect(ageFromBirth('1960-11-23', '2026-11-22')).toBe(65);
    expect(ageFromBirth(null, '2026-11-22')).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), (years) => {
        expect(ageFromBirth(`${2026 - years}-01-01`, '2026-11-22')).toBe(years);
      }),
    );
  });
});
