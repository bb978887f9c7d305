import { describe, expect, it } from 'vitest';
import type { PermissionNode } from '../../../api/study.api';
import { checkedFromPermissions, leafKeys, permissionsFromChecked } from './permission-tree';

/** The shape GET /api/system/studyRole/tree answers (docs/api.md). */
const TREE: PermissionNode[] = [
  {
    key: 'btn',
    title: '功能权限',
    children: [
      { key: 'btn:business.crf.save', title: '保存表单' },
      { key: 'btn:business.crf.submit', title: '提交表单' },
    ],
  },
  {
    key: 'crf',
    title: 'CRF权限',
    children: [
      {
        key: 'crf:12',
        title: '基线访视',
        children: [
          { key: 'crf:12:view', title: '查看' },
          { key: 'crf:12:save', title: '录入/保存' },
        ],
      },
      { key: 'crf:13', title: '随访', children: [{ key: 'crf:13:view', title: '查看' }] },
    ],
  },
];

describe('study role permission tree', () => {
  it('STUDY-14: the permissions are the leaves, in tree order', () => {
    expect(leafKeys(TREE)).toEqual([
      'btn:business.crf.save',
      'btn:business.crf.submit',
      'crf:12:view',
      'crf:12:save',
      'crf:13:view',
    ]);
  });

  it('STUDY-15: checked group nodes are dropped; only leaf keys are sent as permissions', () => {
    // What a cascading antd tree reports after ticking 基线访视 and 提交表单.
    const checked = ['crf:12', 'crf:12:view', 'crf:12:save', 'btn:business.crf.submit'];
    expect(permissionsFromChecked(TREE, checked)).toEqual(['btn:business.crf.submit', 'crf:12:view', 'crf:12:save']);
    // Everything ticked through the roots.
    expect(permissionsFromChecked(TREE, ['btn', 'crf', ...leafKeys(TREE)])).toEqual(leafKeys(TREE));
  });

  it('a stored role is shown from its leaves only, and keys of deleted CRFs are left out', () => {
    expect(checkedFromPermissions(TREE, ['crf:12:view', 'crf:99:view', 'btn:business.crf.save'])).toEqual([
      'btn:business.crf.save',
      'crf:12:view',
    ]);
  });

  it('an empty heading (CRF权限 before any upload) is not a permission', () => {
    const bare: PermissionNode[] = [
      { key: 'btn', title: '功能权限', children: [{ key: 'btn:business.crf.save', title: '保存表单' }] },
      { key: 'crf', title: 'CRF权限', children: [] },
    ];
    expect(permissionsFromChecked(bare, ['btn', 'crf', 'btn:business.crf.save'])).toEqual(['btn:business.crf.save']);
  });
});
