import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exampleCrf } from './crf/example-crf.js';
import type { CrfDefinition, CrfNode } from './crf/crf-definition.schema.js';
import { exportCell, exportVariables, randomShiftDays, shiftDate, statName, uniqueNames } from './export.js';

const node = (type: CrfNode['type'], name: string, title: string, option: CrfNode['option'] = {}): CrfNode => ({
  type,
  name,
  title,
  option,
  children: [],
});

describe('export variables and date shifting', () => {
  it('SRCH-02: every variable name is one SPSS, Stata and R accept, unique in the form', () => {
    const vars = exportVariables(exampleCrf());
    expect(vars.length).toBeGreaterThan(0);
    for (const v of vars) expect(v.name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,31}$/);
    expect(new Set(vars.map((v) => v.name.toLowerCase())).size).toBe(vars.length);
    expect(statName('1年龄')).toBe('v1');
    expect(statName('年龄')).toBe('v');
    expect(uniqueNames(['a', 'A', 'a'])).toEqual(['a', 'A_2', 'a_3']);
  });

  it('SRCH-02: a shifted date moves by the offset, keeps its time, and partial dates are withheld', () => {
    expect(shiftDate('2024-03-01', -1)).toBe('2024-02-29');
    expect(shiftDate('2024-12-31 08:30:00', 1)).toBe('2025-01-01 08:30:00');
    expect(shiftDate('2024-UK-UK', 3)).toBeNull();
    expect(shiftDate('2024-05', 3)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (max, r) => {
        const d = randomShiftDays(max, () => r);
        return d !== 0 && Math.abs(d) <= max;
      }),
    );
  });

  it('SRCH-02: the text typed beside an option (其他（请注明）) is a text variable of its own, named after its stored key, right after its item', () => {
    const definition: CrfDefinition = {
      title: 't',
      option: {},
      children: [
        node('radio', 'smoke', '吸烟', {
          optionsValue: '0,1,9',
          optionsText: '否,是,其他',
          addition: '请注明',
          additionIndex: '2',
        }),
        node('checkbox', 'history', '既往史', { optionsValue: '1,99', optionsText: '糖尿病,其他', additionIndex: '1' }),
        // Text for a box no option shows: there is no box, and no column.
        node('radio', 'kind', '类型', { optionsValue: '1', optionsText: '甲', addition: '请注明' }),
        node('int', 'age', '年龄'),
      ],
    };
    const vars = exportVariables(definition);
    expect(vars.map((v) => [v.name, v.item, v.kind, v.title])).toEqual([
      ['smoke', 'smoke', 'choice', '吸烟'],
      ['smoke_addition', 'smoke_addition', 'text', '吸烟（请注明）'],
      ['history___1', 'history', 'check', '既往史：糖尿病'],
      ['history___99', 'history', 'check', '既往史：其他'],
      ['history_addition', 'history_addition', 'text', '既往史（补充）'],
      ['kind', 'kind', 'choice', '类型'],
      ['age', 'age', 'number', '年龄'],
    ]);
    const values = { smoke: '9', smoke_addition: '水烟', history: ['99'], history_addition: '痛风' };
    const cell = (name: string, labels: boolean) =>
      exportCell(
        vars.find((v) => v.name === name)!,
        values,
        { labels, shiftDays: null },
      );
    // The choice is its code or label alone; the text is in its own column.
    expect(cell('smoke', true)).toBe('其他');
    expect(cell('smoke', false)).toBe('9');
    expect(cell('smoke_addition', true)).toBe('水烟');
    expect(cell('smoke_addition', false)).toBe('水烟');
    expect(cell('history___99', false)).toBe(1);
    expect(cell('history_addition', false)).toBe('痛风');
    expect(exportVariables(exampleCrf()).some((v) => v.name === 'history_addition')).toBe(true);
  });

  it("SRCH-02: an upload is written as its files' names, never as their storage keys", () => {
    const vars = exportVariables({
      title: 't',
      option: {},
      children: [node('fileUpload', 'report', '化验单'), node('imageUpload', 'xray', '影像')],
    });
    const key = 'a1b2c3d4e5f6';
    const values = {
      report: key,
      xray: JSON.stringify([{ dialogImgUrl: `/api/v1/fileupload/downfile?fileKey=img1`, remarks: '正位' }]),
    };
    const fileNames = new Map([
      [key, '血常规.pdf'],
      ['img1', '正位片.png'],
    ]);
    const cells = vars.map((v) => exportCell(v, values, { labels: false, shiftDays: null, fileNames }));
    expect(cells).toEqual(['血常规.pdf', '正位片.png（正位）']);
  });
});
