import { describe, expect, it } from 'vitest';
import { positiveIdOf } from './positive-id';

describe('positiveIdOf: the id an address names', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    [' 7 ', 7],
    ['7.0', 7],
  ])('%j is the id %d', (value, id) => {
    expect(positiveIdOf(value)).toBe(id);
  });

  it.each([[undefined], [null], [''], ['0'], ['-3'], ['1.5'], ['abc'], ['12abc'], ['NaN'], ['Infinity']])(
    '%j names no id',
    (value) => {
      expect(positiveIdOf(value)).toBeNull();
    },
  );
});
