import { describe, expect, it } from 'vitest';
import type { CrfNode } from './crf-definition.schema.js';
import { groupInfoOf, optionIndexOf } from './group-info.js';

const node = (
  type: CrfNode['type'],
  name: string,
  option: CrfNode['option'] = {},
  children: CrfNode[] = [],
): CrfNode => ({
  name,
  title: name,
  type,
  option,
  children,
});

const implants = node('listGroup', 'implants', {}, [
  node('select', 'kind', { optionsValue: 'screw,rod,cage', optionsText: '椎弓根螺钉,连接棒,椎间融合器' }),
  node('checkbox', 'side', { optionsValue: 'L,R', optionsText: '左,右' }),
  node('int', 'count'),
]);
const rows = JSON.stringify([
  { kind: 'screw', side: ['L', 'R'], count: 4 },
  { kind: 'cage', side: ['L'], count: 1 },
  { kind: 'plate', count: 1 },
]);

describe('group info (WID-09)', () => {
  it('WID-09: group info is groupName, name and valueIndex, the option index of the value the child holds in a row', () => {
    expect(groupInfoOf(implants, 'kind', rows, 0)).toEqual({ groupName: 'implants', name: 'kind', valueIndex: 0 });
    expect(groupInfoOf(implants, 'kind', rows, 1)).toEqual({ groupName: 'implants', name: 'kind', valueIndex: 2 });
    expect(groupInfoOf(implants, 'kind', JSON.parse(rows) as unknown, 1).valueIndex).toBe(2);
  });

  it.each([
    ['a value outside the options', 'kind', 2],
    ['several values (checkbox)', 'side', 0],
    ['an item without options', 'count', 0],
    ['a row that does not exist', 'kind', 9],
    ['an unknown child', 'nope', 0],
  ])('WID-09: valueIndex is null for %s', (_case, name, row) => {
    expect(groupInfoOf(implants, name, rows, row)).toEqual({ groupName: 'implants', name, valueIndex: null });
  });

  it('WID-09: a stored number matches its option text, as trig/tindex read it', () => {
    expect(optionIndexOf(node('radio', 'grade', { optionsValue: '1,2,3' }), 3)).toBe(2);
    expect(optionIndexOf(node('radio', 'grade', { optionsValue: '1,2,3' }), '')).toBeNull();
  });
});
