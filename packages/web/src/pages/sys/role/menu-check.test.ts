import { describe, expect, it } from 'vitest';
import { checkStateFromLeaves, menuIdsOf } from './menu-check';

const tree = [
  {
    id: 1,
    label: '系统管理',
    children: [
      {
        id: 2,
        label: '用户管理',
        children: [
          { id: 5, label: '新增' },
          { id: 6, label: '删除' },
        ],
      },
      { id: 3, label: '角色管理' },
    ],
  },
  { id: 4, label: '项目列表' },
];

describe('role menu tree', () => {
  it('SYS-05: a stored role is restored from its leaves; parents become checked or half-checked', () => {
    // The server stores parents (1, 2) beside the leaves; only leaves decide the tree.
    expect(checkStateFromLeaves(tree, [1, 2, 5])).toEqual({ checked: [5], halfChecked: [2, 1] });
    expect(checkStateFromLeaves(tree, [5, 6, 3])).toEqual({ checked: [5, 6, 2, 3, 1], halfChecked: [] });
    expect(checkStateFromLeaves(tree, [1, 2])).toEqual({ checked: [], halfChecked: [] });
  });

  it('SYS-05: the role is sent with checked and half-checked menu ids', () => {
    expect(menuIdsOf({ checked: [5, 4], halfChecked: [2, 1] }).sort()).toEqual([1, 2, 4, 5]);
  });
});
