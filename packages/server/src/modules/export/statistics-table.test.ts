import { describe, expect, it } from 'vitest';
import type { StatVariable } from './export-statistics.js';
import { cellReader, dayOf, instantOf, numberOf, TableProfile, utf8Prefix } from './statistics-table.js';

const variable = (v: Partial<StatVariable> & Pick<StatVariable, 'name' | 'type'>): StatVariable => ({
  label: v.name,
  values: [],
  numeric: false,
  ...v,
});

describe('the statistics table: column types from the values, never a value dropped for its type', () => {
  it('reads numbers, dates and date-times', () => {
    expect([numberOf(' 12.5 '), numberOf('-3'), numberOf('1e3'), numberOf('<5'), numberOf(''), numberOf(7)]).toEqual([
      12.5,
      -3,
      1000,
      null,
      null,
      7,
    ]);
    expect([dayOf('1970-01-02'), dayOf('2026-02-30'), dayOf('2020-UK-UK'), dayOf('1500-01-01')]).toEqual([
      1,
      null,
      null,
      null,
    ]);
    expect(instantOf('1970-01-01 01:02')).toBe(3_720_000);
    expect(instantOf('1970-01-01T00:00:01')).toBe(1000);
    expect([instantOf('1970-01-01'), instantOf('1970-01-01 24:00')]).toEqual([null, null]);
  });

  it('keeps a declared type when every value reads as it, and makes the column text when one does not', () => {
    const vars = [
      variable({ name: 'sbp', type: 'number' }),
      variable({ name: 'crp', type: 'number' }),
      variable({ name: 'lab_date', type: 'date' }),
      variable({ name: 'reop_date', type: 'date' }),
      variable({ name: 'vs_at', type: 'datetime' }),
      variable({ name: 'ethnic', type: 'string', values: [['other_long', '其\n他']], label: '民族\r\n（汉）' }),
      variable({
        name: 'smoke',
        type: 'number',
        values: [
          ['0', '从不'],
          ['1', '已戒烟'],
        ],
        numeric: true,
      }),
    ];
    const profile = new TableProfile(vars);
    profile.see([150, '12.25', '2026-01-10', '2026-05', '2026-01-10 08:30', 'han', '1']);
    profile.see([120, '<5', null, '2026-01-01', '', 'a\nb', '0']);
    const columns = profile.columns();
    expect(columns.map((c) => c.type)).toEqual(['number', 'text', 'date', 'text', 'datetime', 'text', 'number']);
    expect(columns[0]).toMatchObject({ digits: 3, decimals: 0 });
    // The choice's code is wider than any value, the values hold a line break, labels are one line.
    expect(columns[5]).toMatchObject({
      width: 10,
      multiline: true,
      label: '民族 （汉）',
      labels: [['other_long', '其 他']],
    });
    expect(columns[6]!.labels).toEqual([
      [0, '从不'],
      [1, '已戒烟'],
    ]);
    const read = cellReader(columns);
    expect(read([150, '<5', '2026-01-10', '2026-05', '1970-01-01 00:00:02', 'han', '1'])).toEqual([
      150,
      '<5',
      20463,
      '2026-05',
      2000,
      'han',
      1,
    ]);
    expect(read([null, '', null, null, null, '', null])).toEqual([null, null, null, null, null, null, null]);
  });

  it('measures the digits a number display needs', () => {
    const profile = new TableProfile([variable({ name: 'x', type: 'number' })]);
    for (const x of [0.125, -1234.5, 1e-7]) profile.see([x]);
    expect(profile.columns()[0]).toMatchObject({ digits: 4, decimals: 7 });
  });

  it('cuts UTF-8 at a character boundary', () => {
    expect(utf8Prefix('汉字ab', 5).toString()).toBe('汉');
    expect(utf8Prefix('汉字ab', 6).toString()).toBe('汉字');
    expect(utf8Prefix('ab', 6).toString()).toBe('ab');
  });
});
