import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDoubleEntries, reconcileDoubleEntries, sameEntryValue } from './double-entry.js';

describe('issue 37 双份录入: comparing two entries', () => {
  it.each([
    ['120', 120, true],
    [' 120 ', '120', true],
    ['120.0', '120', true],
    ['.5', '0.5', true],
    ['', null, true],
    [[], undefined, true],
    ['男', '男', true],
    [['a', 'b'], ['a', 'b'], true],
    [{ x: '1', y: '' }, { x: 1 }, true],
    ['120', '121', false],
    ['1e2', '100', false],
    ['abc', 'abd', false],
    [['a', 'b'], ['b', 'a'], false],
    ['0', '', false],
  ])('%j and %j are the same value: %s', (a, b, same) => {
    expect(sameEntryValue(a, b)).toBe(same);
  });

  it('lists the items that differ by value or by 缺失原因 mark, entry 1 items first', () => {
    const diffs = compareDoubleEntries(
      { values: { sbp: '120', dbp: 80, hr: '70', note: '' }, missing: {} },
      { values: { sbp: 120, dbp: '81', temp: '36.5' }, missing: { hr: 'NA' } },
    );
    expect(diffs).toEqual([
      { itemName: 'dbp', entry1: 80, entry2: '81', missing1: null, missing2: null },
      { itemName: 'hr', entry1: '70', entry2: null, missing1: null, missing2: 'NA' },
      { itemName: 'temp', entry1: null, entry2: '36.5', missing1: null, missing2: null },
    ]);
  });

  it('a mark is a value: the same code on both sides agrees, another code or a number differs', () => {
    const diffs = compareDoubleEntries(
      { values: { sbp: '120' }, missing: { hr: 'ND', temp: 'UNK', vas: 'NA' } },
      { values: { sbp: '120', vas: '3' }, missing: { hr: 'ND', temp: 'ASKU' } },
    );
    expect(diffs).toEqual([
      { itemName: 'temp', entry1: null, entry2: null, missing1: 'UNK', missing2: 'ASKU' },
      { itemName: 'vas', entry1: null, entry2: '3', missing1: 'NA', missing2: null },
    ]);
  });

  it('marks compare like values: identical marks never differ, and the comparison stays symmetric (property)', () => {
    const mark = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('ND', 'NA', 'UNK'));
    const value = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(fc.string({ maxLength: 3 }), fc.integer()));
    fc.assert(
      fc.property(value, mark, value, mark, (v1, m1, v2, m2) => {
        expect(compareDoubleEntries({ values: v1, missing: m1 }, { values: v1, missing: { ...m1 } })).toEqual([]);
        const ab = compareDoubleEntries({ values: v1, missing: m1 }, { values: v2, missing: m2 }).map(
          (d) => d.itemName,
        );
        const ba = compareDoubleEntries({ values: v2, missing: m2 }, { values: v1, missing: m1 }).map(
          (d) => d.itemName,
        );
        expect(new Set(ab)).toEqual(new Set(ba));
        // An item marked on one side only always differs.
        for (const name of Object.keys(m1)) if (!(name in m2)) expect(ab).toContain(name);
      }),
    );
  });

  it('two identical entries have no difference (property)', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(null));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), value), (values) => {
        expect(compareDoubleEntries({ values }, { values: structuredClone(values) })).toEqual([]);
      }),
    );
  });

  it('the comparison is symmetric (property)', () => {
    const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.constant(null));
    const entry = fc.dictionary(fc.constantFrom('a', 'b', 'c'), value);
    fc.assert(
      fc.property(entry, entry, (one, two) => {
        const ab = compareDoubleEntries({ values: one }, { values: two }).map((d) => d.itemName);
        const ba = compareDoubleEntries({ values: two }, { values: one }).map((d) => d.itemName);
        expect(new Set(ab)).toEqual(new Set(ba));
      }),
    );
  });
});

describe('issue 37 双份录入: reconciling', () => {
  const one = { values: { sbp: '120', dbp: '80', hr: '70' }, missing: {} };
  const two = { values: { sbp: '120', dbp: '85', hr: '72' }, missing: {} };

  it('agreed items as entry 1 typed them, each difference as decided (an entry or a value from the paper)', () => {
    const result = reconcileDoubleEntries(one, two, { dbp: 'entry2', hr: { value: '71' } });
    expect(result).toMatchObject({ ok: true, values: { sbp: '120', dbp: '85', hr: '71' }, missing: {} });
  });

  it('a decision may set a 缺失原因 mark instead of a value', () => {
    const result = reconcileDoubleEntries(one, two, { dbp: 'entry1', hr: { missing: 'ND' } });
    expect(result).toMatchObject({ ok: true, values: { sbp: '120', dbp: '80' }, missing: { hr: 'ND' } });
  });

  it('refuses an undecided difference and a decision on an item that is no difference', () => {
    expect(reconcileDoubleEntries(one, two, { dbp: 'entry1' })).toEqual({
      ok: false,
      problem: { kind: 'undecided', itemNames: ['hr'] },
    });
    expect(reconcileDoubleEntries(one, two, { dbp: 'entry1', hr: 'entry1', sbp: 'entry2' })).toEqual({
      ok: false,
      problem: { kind: 'not_a_difference', itemNames: ['sbp'] },
    });
  });
});
