import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_CONFIG } from './study.js';
import { residentIdCheckChar } from './crf/field-rules.js';
import {
  ageFromBirth,
  isMaskOf,
  latestBirthDate,
  maskBirth,
  maskIdentifier,
  maskIdNumber,
  maskMobile,
  maskName,
  subjectFieldErrors,
} from './subject.js';

const opts = { baseConfig: DEFAULT_BASE_CONFIG, today: '2026-11-22', serialNumbers: false, diseaseCodes: ['LSS'] };
const valid = {
  identificationCode: 'P001',
  subjectName: '张三',
  gender: 1,
  diseaseCode: 'LSS',
  birth: '1960-05-01',
  mobile: '13912345678',
};

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

describe('patient identifiers (PIPL)', () => {
  const idBody = fc.stringMatching(/^\d{17}$/);
  const idNumber = idBody.map((body) => body + residentIdCheckChar(body));
  const mobile = fc.stringMatching(/^1[3-9]\d{9}$/);

  it('masks ID number, mobile, name and birth as the lists show them', () => {
    expect(maskIdNumber('11010519491231002X')).toBe('110105********002X');
    expect(maskMobile('13800000002')).toBe('138****0002');
    expect(maskName('张三')).toBe('张*');
    expect(maskName('欧阳娜娜')).toBe('欧***');
    expect(maskName('张')).toBe('*');
    expect(maskBirth('1960-05-01')).toBe('1960-**-**');
    expect(maskIdentifier('mobile', null)).toBeNull();
    expect(maskIdentifier('mobile', '')).toBe('');
    expect(maskIdNumber('12345')).toBe('*****');
  });

  it('a mask keeps the length and only the agreed ends of the value', () => {
    fc.assert(
      fc.property(idNumber, (id) => {
        const masked = maskIdNumber(id);
        expect(masked).toHaveLength(18);
        expect(masked.slice(0, 6)).toBe(id.slice(0, 6));
        expect(masked.slice(-4)).toBe(id.slice(-4));
        expect(masked.slice(6, 14)).toBe('********');
      }),
    );
    fc.assert(
      fc.property(mobile, (m) => {
        expect(maskMobile(m)).toBe(`${m.slice(0, 3)}****${m.slice(-4)}`);
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 2, maxLength: 10, unit: fc.constantFrom(...'张王欧阳李娜明华') }), (name) => {
        const masked = maskName(name);
        expect(Array.from(masked)).toHaveLength(Array.from(name).length);
        expect(masked.slice(1)).toMatch(/^\*+$/);
      }),
    );
  });

  it('a value sent back is unchanged only when it is exactly the mask of the stored one', () => {
    fc.assert(
      fc.property(idNumber, idNumber, (stored, other) => {
        expect(isMaskOf('idNumber', maskIdNumber(stored), stored)).toBe(true);
        // A real number is never taken for a mask, even the stored one itself.
        expect(isMaskOf('idNumber', stored, stored)).toBe(false);
        if (maskIdNumber(other) !== maskIdNumber(stored)) {
          expect(isMaskOf('idNumber', maskIdNumber(other), stored)).toBe(false);
        }
      }),
    );
    expect(isMaskOf('mobile', '138****0002', null)).toBe(false);
    expect(isMaskOf('mobile', undefined, '13800000002')).toBe(false);
  });

  it('the ID number is checked with the resident-ID rule (请输入正确的身份证号码)', () => {
    expect(subjectFieldErrors({ ...valid, idNumber: '11010519491231002X' }, opts)).toEqual({});
    expect(subjectFieldErrors({ ...valid, idNumber: '11010519491231002x' }, opts)).toEqual({});
    expect(subjectFieldErrors({ ...valid, idNumber: '110105194912310021' }, opts).idNumber).toBe(
      '请输入正确的身份证号码',
    );
    const required = opts.baseConfig.map((f) => (f.name === 'idNumber' ? { ...f, required: true } : f));
    expect(subjectFieldErrors({ ...valid, idNumber: '' }, { ...opts, baseConfig: required }).idNumber).toBe(
      '请输入身份证号码',
    );
  });
});
