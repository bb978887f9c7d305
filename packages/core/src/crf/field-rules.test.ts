import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfNode } from './crf-definition.schema.js';
import { isMobile, normalizeMobile } from '../account.js';
import { CRF_MSG } from './crf-messages.js';
import { divisionCodes } from './division-codes.js';
import {
  eighteenDigitId,
  FIELD_RULE_TRIGGERS,
  isResidentIdNumber,
  itemRule,
  residentIdCheckChar,
  validateField,
  type FieldRule,
} from './field-rules.js';

const node = (type: CrfNode['type'], option: CrfNode['option'] = {}): CrfNode => ({
  name: 'x',
  title: 'X',
  type,
  option,
  children: [],
});

describe('form-field helper (forms §5)', () => {
  it.each<[string, unknown, FieldRule, string | null]>([
    ['VAL-02: required with options', '', { required: true, hasOptions: true }, '请选择选项'],
    ['VAL-02: required with options (empty array)', [], { required: true, hasOptions: true }, '请选择选项'],
    ['VAL-02: required without options', '  ', { required: true }, '请输入数据'],
    ['VAL-02: required without options (undefined)', undefined, { required: true }, '请输入数据'],
    ['VAL-02: not required and empty passes', '', { type: 'int', min: 3 }, null],
    ['VAL-03: signed integer', '-12', { type: 'int' }, null],
    ['VAL-03: plus sign', '+7', { type: 'int' }, null],
    ['VAL-03: decimal is not an integer', '1.5', { type: 'int' }, CRF_MSG.notInteger],
    ['VAL-03: text is not an integer', '12a', { type: 'int' }, CRF_MSG.notInteger],
    ['VAL-04: signed decimal', '-3.25', { type: 'float' }, null],
    ['VAL-04: not a decimal', '3.2.1', { type: 'float' }, CRF_MSG.notNumber],
    ['VAL-04: precision respected', '3.25', { type: 'float', precision: 2 }, null],
    ['VAL-04: too many decimals', '3.255', { type: 'float', precision: 2 }, CRF_MSG.tooManyDecimals(2)],
    ['VAL-04: precision 0', '3.0', { type: 'float', precision: 0 }, CRF_MSG.tooManyDecimals(0)],
    ['VAL-05: numeric min (not text order)', '9', { type: 'int', min: 10 }, CRF_MSG.belowMin(10)],
    ['VAL-05: numeric max', '100.5', { type: 'float', max: 100 }, CRF_MSG.aboveMax(100)],
    ['VAL-05: inside bounds', '10', { type: 'int', min: 9, max: 100 }, null],
    ['VAL-06: email', 'nurse@hospital.cn', { type: 'email' }, null],
    ['VAL-06: bad email', 'nurse@', { type: 'email' }, CRF_MSG.email],
    ['VAL-07: mainland phone', '13912345678', { type: 'phone' }, null],
    ['VAL-07: second digit 2', '12912345678', { type: 'phone' }, CRF_MSG.phone],
    ['VAL-07: 10 digits', '1391234567', { type: 'phone' }, CRF_MSG.phone],
    ['VAL-08: ID with X check', '11010519491231002X', { type: 'idcard' }, null],
    ['VAL-08: ID with lowercase x', '11010519491231002x', { type: 'idcard' }, null],
    ['VAL-08: ID with wrong check digit', '110105194912310021', { type: 'idcard' }, CRF_MSG.idcard],
    [
      'VAL-08: a 15-digit first-generation ID is judged as the 18-digit one it became',
      '110105491231002',
      { type: 'idcard' },
      null,
    ],
    ['VAL-09: length lower bound', 'ab', { min: 3 }, CRF_MSG.tooShort(3)],
    ['VAL-09: length upper bound counts characters, not bytes', '张三李四', { max: 4 }, null],
    ['VAL-09: too long', '张三李四王', { max: 4 }, CRF_MSG.tooLong(4)],
    ['VAL-10: pattern passes', 'AB-12', { pattern: '^[A-Z]{2}-\\d+$' }, null],
    ['VAL-10: pattern fails', 'ab-12', { pattern: '^[A-Z]{2}-\\d+$' }, CRF_MSG.pattern],
    [
      'VAL-11: errorMsg replaces the required message',
      '',
      { required: true, errorMsg: '请填写收缩压' },
      '请填写收缩压',
    ],
    ['VAL-11: errorMsg replaces the type message', 'x', { type: 'int', errorMsg: '收缩压应为整数' }, '收缩压应为整数'],
    ['VAL-11: errorMsg is not shown when valid', '120', { type: 'int', errorMsg: '收缩压应为整数' }, null],
  ])('%s', (_title, value, rule, expected) => {
    expect(validateField(value, rule)).toBe(expected);
  });

  it('VAL-12: rules run on blur and change', () => {
    expect(FIELD_RULE_TRIGGERS).toEqual(['blur', 'change']);
  });

  it('VAL-13/VAL-14/VAL-01/WID-11: per-item rules come from type and option', () => {
    expect(itemRule(node('int', { required: 1, validate: { min: '0', max: 300 } }))).toMatchObject({
      required: true,
      type: 'int',
      min: 0,
      max: 300,
    });
    expect(itemRule(node('real', { validate: { precision: 1 } }))).toMatchObject({ type: 'float', precision: 1 });
    expect(
      itemRule(
        node('input', { validate: { type: 'idcard' }, validationEx: '^1', validationErrorMsg: '身份证号不正确' }),
      ),
    ).toMatchObject({
      type: 'idcard',
      pattern: '^1',
      errorMsg: '身份证号不正确',
    });
    expect(itemRule(node('radio', { required: '1', optionsValue: '1,2' }))).toMatchObject({
      required: true,
      hasOptions: true,
      min: null,
    });
    expect(itemRule(node('date', { required: true, validate: { min: 1 } }))).toMatchObject({
      required: true,
      hasOptions: false,
      min: null,
    });
    expect(itemRule(node('text', { required: 0 })).required).toBe(false);
  });
});

describe('resident ID checksum (properties)', () => {
  // A plausible number body: a known region code, a real birth date from 1900 to 2025, any sequence digits.
  const first17 = fc
    .tuple(
      fc.constantFrom(...divisionCodes()),
      fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2025-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.stringMatching(/^\d{3}$/),
    )
    .map(([region, birth, sequence]) => `${region}${birth.toISOString().slice(0, 10).replaceAll('-', '')}${sequence}`);

  it('VAL-08: every 17 digits plus their check character passes, in either case of X', () => {
    fc.assert(
      fc.property(first17, (body) => {
        const check = residentIdCheckChar(body);
        expect(isResidentIdNumber(body + check)).toBe(true);
        expect(isResidentIdNumber(body + check.toLowerCase())).toBe(true);
      }),
    );
  });

  it('VAL-08: any other check character fails, and so does a changed digit', () => {
    fc.assert(
      fc.property(
        first17,
        fc.constantFrom(...'0123456789X'),
        fc.integer({ min: 0, max: 16 }),
        (body, other, position) => {
          const check = residentIdCheckChar(body);
          fc.pre(other !== check);
          expect(isResidentIdNumber(body + other)).toBe(false);
          const digit = Number(body[position]);
          const changed = body.slice(0, position) + String((digit + 1) % 10) + body.slice(position + 1);
          // Weights are all non-zero mod 11, so a single changed digit always changes the check character.
          expect(isResidentIdNumber(changed + check)).toBe(false);
        },
      ),
    );
  });

  it('VAL-08: never accepts anything but 17 digits and a check character', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (s) => {
        if (isResidentIdNumber(s)) expect(s).toMatch(/^\d{17}[\dXx]$/);
      }),
    );
  });
});

describe('resident ID: more than the checksum', () => {
  const withCheck = (first17: string) => first17 + residentIdCheckChar(first17);

  it.each([
    ['30 February', '110105' + '19490230' + '002'],
    ['month 13', '110105' + '19491301' + '002'],
    ['born in 1800', '110105' + '18001231' + '002'],
    ['born in the future', '110105' + '20991231' + '002'],
    ['region 000000', '000000' + '19491231' + '002'],
    ['region 999999', '999999' + '19491231' + '002'],
  ])('VAL-08: refuses a number with a valid check character but %s', (_label, first17) => {
    expect(isResidentIdNumber(withCheck(first17), '2026-11-23')).toBe(false);
  });

  it.each([
    ['a current district (Shenzhen Nanshan)', '440305'],
    ['the newest code in the table (Chongqing Liangjiang New Area, 2025)', '500157'],
    ['a county abolished in 2010 (Beijing Chongwen)', '110103'],
    ['a district abolished in 2013 (Nanjing Baixia)', '320103'],
    ['a county of a prefecture abolished in 1993 (Daming, Handan prefecture)', '132121'],
    ['a code of the 1980 first edition only (Changping county, Beijing)', '110201'],
    ['a provincially administered city before it moved under a prefecture (Wu’an, 1988-1990)', '139001'],
    ['a municipality’s districts summary code (Beijing 市辖区)', '110100'],
    ['a municipality’s counties summary code (Shanghai 县)', '310200'],
    ['a city’s districts summary code (Shijiazhuang 市辖区)', '130101'],
    ['a prefecture-level city code', '130100'],
    ['a prefecture code (Altay prefecture)', '654300'],
    ['a Hong Kong residence permit', '810000'],
    ['a Taiwan residence permit', '830000'],
  ])('VAL-08: accepts the region code of %s', (_label, region) => {
    expect(isResidentIdNumber(withCheck(region + '19801231' + '002'), '2026-11-23')).toBe(true);
  });

  it.each([
    ['a province-level code', '440000'],
    ['Taiwan province (no mainland resident ID carries it)', '710000'],
    ['a number never assigned under Beijing', '110130'],
    ['a number never assigned in Guangdong', '449999'],
    ['a province that does not exist', '280101'],
  ])('VAL-08: refuses the region code of %s', (_label, region) => {
    expect(isResidentIdNumber(withCheck(region + '19801231' + '002'), '2026-11-23')).toBe(false);
  });

  it('VAL-08: a 15-digit first-generation number with an abolished county code is accepted', () => {
    // Dongcheng/Chongwen: 15-digit numbers were issued from 1984 under the codes of that time.
    expect(isResidentIdNumber('110103491231002')).toBe(true);
    expect(isResidentIdNumber('110130491231002')).toBe(false);
  });

  it('VAL-08: accepts 29 February of a leap year and a birth today', () => {
    expect(isResidentIdNumber(withCheck('110105' + '20000229' + '002'), '2026-11-23')).toBe(true);
    expect(isResidentIdNumber(withCheck('110105' + '20261123' + '002'), '2026-11-23')).toBe(true);
  });

  it('VAL-08: a 15-digit number becomes 18 digits with 19 inserted and its check character', () => {
    expect(eighteenDigitId('110105491231002')).toBe('11010519491231002X');
    expect(eighteenDigitId('1101054912310')).toBeNull();
    expect(isResidentIdNumber('110105491331002')).toBe(false);
  });
});

describe('mobile numbers as typed', () => {
  it.each([
    ['+8613912345678', '13912345678'],
    ['0086 139 1234 5678', '13912345678'],
    ['86-139-1234-5678', '13912345678'],
    ['139 1234 5678', '13912345678'],
    ['19212345678', '19212345678'],
  ])('VAL-07: %s is the mainland mobile %s', (typed, national) => {
    expect(normalizeMobile(typed)).toBe(national);
    expect(isMobile(typed)).toBe(true);
  });

  it('VAL-07: a number that is not a mainland mobile stays refused', () => {
    expect(isMobile('+8612912345678')).toBe(false);
    expect(isMobile('+1 415 555 0100')).toBe(false);
    expect(isMobile('861391234567')).toBe(false);
  });
});
