import { describe, expect, it } from 'vitest';
import type { CrfNode, ItemType } from '../crf-definition.schema.js';
import {
  fromRedcapCode,
  redcapCheckboxColumn,
  redcapChoiceCodes,
  redcapValue,
  redcapValueFits,
  toRedcapCode,
} from './redcap-values.js';

const choice = (type: ItemType, values: string): CrfNode => ({
  name: 'x',
  title: 'x',
  type,
  option: { optionsValue: values, optionsText: values },
  children: [],
});

describe('REDCap choice codes', () => {
  it('keeps codes REDCap accepts and renames the others to legal ones, the same every time', () => {
    const levels = choice('checkbox', 'L1/2,L2/3,L5/S1');
    expect(redcapChoiceCodes(levels).map((c) => c.redcap)).toEqual(['L1_2', 'L2_3', 'L5_S1']);
    expect(redcapChoiceCodes(choice('checkbox', 'L1/2,L2/3,L5/S1')).map((c) => c.redcap)).toEqual([
      'L1_2',
      'L2_3',
      'L5_S1',
    ]);
    expect(redcapChoiceCodes(choice('radio', '1,-1,2.5,a_b,x-y')).map((c) => c.redcap)).toEqual([
      '1',
      '-1',
      '2.5',
      'a_b',
      'x-y',
    ]);
    expect(redcapChoiceCodes(choice('select', '其他,未知')).map((c) => c.redcap)).toEqual(['c1', 'c2']);
    expect(toRedcapCode(levels, 'L1/2')).toBe('L1_2');
    expect(fromRedcapCode(levels, 'L1_2')).toBe('L1/2');
  });

  it("gives a checkbox's choices distinct export columns, as REDCap names them", () => {
    const box = choice('multiSelect', 'A,a,1.5,15,-1');
    const codes = redcapChoiceCodes(box);
    expect(codes.map((c) => c.redcap)).toEqual(['A', 'c2', '1.5', 'c4', '-1']);
    expect(codes.map((c) => redcapCheckboxColumn('x', c.redcap))).toEqual([
      'x___a',
      'x___c2',
      'x___15',
      'x___c4',
      'x____1',
    ]);
    // A radio's codes are compared whole: A and a are two codes there.
    expect(redcapChoiceCodes(choice('radio', 'A,a')).map((c) => c.redcap)).toEqual(['A', 'a']);
  });
});

describe('REDCap values', () => {
  it.each([
    ['number_1dp', '36', '36.0'],
    ['number_2dp', '-1.5', '-1.50'],
    ['number_1dp', '36.55', '36.55'],
    ['datetime_ymd', '2026-01-05T08:30', '2026-01-05 08:30'],
    ['datetime_ymd', '2026-01-05 08:30:00', '2026-01-05 08:30'],
    ['datetime_seconds_ymd', '2026-01-05 08:30', '2026-01-05 08:30:00'],
    ['time_hh_mm_ss', '08:30', '08:30:00'],
    ['time', '08:30:00', '08:30'],
    ['date_ymd', '2026-01-05 00:00:00', '2026-01-05'],
    ['date_dmy', '2026-01-05', '2026-01-05'],
    ['', '2020-UK-UK', '2020-UK-UK'],
  ])('%s writes %s as %s', (validation, value, written) => {
    expect(redcapValue(validation, value)).toBe(written);
  });

  it.each([
    ['date_ymd', '2026-02-29', false],
    ['date_ymd', '2024-02-29', true],
    ['date_dmy', '2024-02-29', true],
    ['date_ymd', '2020-05', false],
    ['date_ymd', '2020-UK-01', false],
    ['datetime_seconds_ymd', '2026-01-05 08:30', false],
    ['datetime_ymd', '2026-01-05 08:30', true],
    ['number_1dp', '36.55', false],
    ['number_1dp', '36.5', true],
    ['integer', '3.0', false],
    ['number', '1e3', true],
    ['email', 'a@b.cn', true],
    ['', '2020-05', true],
  ])('%s takes %s: %s', (validation, value, fits) => {
    expect(redcapValueFits(validation, value)).toBe(fits);
  });
});
