import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CrfStage } from '../../../api/study.api';
import { nextOrderNum, reorder, siblingsOf, sortStageTree, stageIds } from './stage-tree';

const stage = (id: number, orderNum: number, children?: CrfStage[], crfs: CrfStage['crfs'] = []): CrfStage => ({
  id,
  parentId: 0,
  studyId: 1,
  name: `阶段${id}`,
  orderNum,
  crfs,
  ...(children ? { children } : {}),
});

describe('ECRF stage tree', () => {
  it('STUDY-19: siblings and forms are ordered by orderNum, ties by id, leaves lose empty children', () => {
    const tree = sortStageTree([
      stage(3, 2, [stage(7, 2), stage(6, 1), stage(5, 1, [])]),
      stage(2, 1, undefined, [
        { crfId: 9, title: '随访', repeat: 0, orderNum: 2 },
        { crfId: 4, title: '基线', repeat: 1, orderNum: 1 },
      ]),
      stage(1, 2),
    ]);
    expect(tree.map((s) => s.id)).toEqual([2, 1, 3]);
    expect(tree[2].children!.map((s) => s.id)).toEqual([5, 6, 7]);
    expect(tree[2].children![0]).not.toHaveProperty('children');
    expect(tree[0].crfs.map((c) => c.crfId)).toEqual([4, 9]);
    expect(stageIds(tree)).toEqual([2, 1, 3, 5, 6, 7]);
  });

  it('moving a stage up renumbers its siblings 1…n and sends only the changed numbers', () => {
    const siblings = [stage(2, 1), stage(1, 2), stage(3, 3)];
    expect(reorder(siblings, (s) => s.id, 3, -1)).toEqual([
      { key: 3, orderNum: 2 },
      { key: 1, orderNum: 3 },
    ]);
    expect(reorder(siblings, (s) => s.id, 2, -1)).toEqual([]);
    expect(reorder(siblings, (s) => s.id, 3, 1)).toEqual([]);
    // Siblings saved with equal numbers are repaired by the first move.
    expect(reorder([stage(1, 0), stage(2, 0), stage(3, 0)], (s) => s.id, 1, 1)).toEqual([
      { key: 2, orderNum: 1 },
      { key: 1, orderNum: 2 },
      { key: 3, orderNum: 3 },
    ]);
  });

  it('after any move the siblings, re-sorted, are the old order with one neighbour swap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.boolean(),
        (numbers, pick, up) => {
          const ordered = sortStageTree(numbers.map((n, i) => stage(i + 1, n)));
          const target = ordered[pick % ordered.length].id;
          const changes = new Map(reorder(ordered, (s) => s.id, target, up ? -1 : 1).map((c) => [c.key, c.orderNum]));
          const after = sortStageTree(ordered.map((s) => ({ ...s, orderNum: changes.get(s.id) ?? s.orderNum })));
          const from = ordered.findIndex((s) => s.id === target);
          const to = from + (up ? -1 : 1);
          const expected = ordered.map((s) => s.id);
          if (to >= 0 && to < expected.length) [expected[from], expected[to]] = [expected[to], expected[from]];
          expect(after.map((s) => s.id)).toEqual(expected);
        },
      ),
    );
  });

  it('finds siblings at any depth and numbers a new stage after the last', () => {
    const tree = sortStageTree([stage(1, 1, [stage(4, 3), stage(5, 7)]), stage(2, 2)]);
    expect(siblingsOf(tree, 5).map((s) => s.id)).toEqual([4, 5]);
    expect(siblingsOf(tree, 2).map((s) => s.id)).toEqual([1, 2]);
    expect(nextOrderNum(siblingsOf(tree, 5))).toBe(8);
    expect(nextOrderNum([])).toBe(1);
  });
});
