import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from './crf-definition.schema.js';
import { item } from './test/fixtures.js';
import {
  canonicalText,
  changedItemNames,
  FORM_STATE,
  formStateOf,
  reasonRequired,
  recordSummary,
  sameValue,
  valueText,
} from './record-values.js';

const json = fc.jsonValue({ maxDepth: 3 });

/** The same value with every object's keys in another order, as jsonb hands them back. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reorder(v)]),
    );
  }
  return value;
}

describe('sameValue: one rule for "changed"', () => {
  it('CRF-27: re-ordered keys of a table row are not a change', () => {
    const before = [{ drug: '阿司匹林', dose: 100, unit: 'mg' }];
    const after = [{ unit: 'mg', dose: 100, drug: '阿司匹林' }];
    expect(sameValue(before, after)).toBe(true);
    expect(changedItemNames({ meds: before }, { meds: after })).toEqual([]);
  });

  it('CRF-27: any JSON value equals itself with its keys re-ordered (property)', () => {
    fc.assert(fc.property(json, (v) => sameValue(v, reorder(v)) && sameValue(JSON.parse(JSON.stringify(v)), v)));
  });

  it('a number and its text are one value; empty text, an empty list and absence are one value', () => {
    expect(sameValue(150, '150')).toBe(true);
    expect(sameValue('', undefined)).toBe(true);
    expect(sameValue([], null)).toBe(true);
    expect(sameValue({ a: '', b: 1 }, { b: 1 })).toBe(true);
  });

  it('a real difference is a change', () => {
    expect(sameValue(150, 151)).toBe(false);
    expect(sameValue([{ a: 1 }, { a: 2 }], [{ a: 2 }, { a: 1 }])).toBe(false);
    expect(sameValue('1', '01')).toBe(false);
    expect(changedItemNames({ a: 1, b: 'x' }, { a: 1, b: 'y', c: '' })).toEqual(['b']);
  });

  it('is symmetric and its text is stable (property)', () => {
    fc.assert(fc.property(json, json, (a, b) => sameValue(a, b) === sameValue(b, a)));
    fc.assert(fc.property(json, (a) => canonicalText(a) === canonicalText(reorder(a))));
  });
});

describe('form state codes and the reason rule', () => {
  it('CRF-14: a form is 未开始 without records, 存在质疑 with an open query, 已提交 when all are submitted', () => {
    expect(formStateOf([])).toBe(FORM_STATE.notStarted);
    expect(formStateOf([{ id: 1, state: 2 }])).toBe(FORM_STATE.submitted);
    expect(
      formStateOf([
        { id: 1, state: 2 },
        { id: 2, state: 1 },
      ]),
    ).toBe(FORM_STATE.incomplete);
    expect(formStateOf([{ id: 1, state: 2 }], new Set([1]))).toBe(FORM_STATE.doubt);
  });

  it('CRF-27: a reason is needed only for a change to a submitted record', () => {
    expect(reasonRequired(FORM_STATE.submitted, ['a'])).toBe(true);
    expect(reasonRequired(FORM_STATE.submitted, [])).toBe(false);
    expect(reasonRequired(FORM_STATE.incomplete, ['a'])).toBe(false);
    expect(reasonRequired(null, ['a'])).toBe(false);
  });
});

describe('value texts', () => {
  const definition: CrfDefinition = {
    id: 't',
    title: 't',
    option: {},
    children: [
      item('radio', 'smoke', '吸烟', { optionsValue: '1,0', optionsText: '是,否' }),
      item('int', 'weight', '体重', { units: 'kg' }),
      item('input', 'note', '备注'),
    ],
  };

  it('PRINT-01: a record reads with titles, choice labels and units', () => {
    expect(recordSummary(definition, { smoke: '1', weight: 70, note: '' })).toBe('吸烟：是；体重：70 kg');
    expect(valueText(undefined, { a: 1 })).toBe('{"a":1}');
  });

  const visit: CrfDefinition = {
    id: 'v',
    title: '随访',
    option: {},
    children: [
      item('section', 'fu', '随访', {}, [
        item('int', 'odi', 'ODI评分', { units: '%' }),
        item('radio', 'reop', '再次手术', { optionsValue: '0,1', optionsText: '否,是' }),
        item('slider', 'vas', 'VAS'),
        item('date', 'fu_date', '随访日期'),
        item('datetime', 'fu_at', '记录时间'),
      ]),
    ],
  };

  it.each([
    [
      'the first date item leads, whatever its place in the form',
      { odi: 30, reop: '0', vas: 2, fu_date: '2026-01-15' },
      '随访日期：2026-01-15；ODI评分：30 %；再次手术：否',
    ],
    ['an empty date leaves the summary as it was', { odi: 30, reop: '1' }, 'ODI评分：30 %；再次手术：是'],
    ['a 1900 date reads as empty (forms §9)', { fu_date: '1900-01-01', odi: 5 }, 'ODI评分：5 %'],
    [
      'only the first date item leads; a later one counts as any item',
      { fu_date: '2026-02-01', fu_at: '2026-02-01 09:30:00' },
      '随访日期：2026-02-01；记录时间：2026-02-01 09:30:00',
    ],
    ['the date alone', { fu_date: '2026-03-01' }, '随访日期：2026-03-01'],
  ])('CRF-14: a repeatable record names its date: %s', (_name, values, expected) => {
    expect(recordSummary(visit, values)).toBe(expected);
  });
});
