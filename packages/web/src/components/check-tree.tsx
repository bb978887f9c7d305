import type { Key } from 'react';
import { Tree, type TreeDataNode, type TreeProps } from 'antd';

/**
 * A tree of permissions to tick, open at every level, in a bordered box that scrolls beyond `maxHeight`. It is
 * drawn afresh when its nodes arrive, so that they open too.
 */
export function CheckTree({
  treeData,
  checkedKeys,
  maxHeight,
  onCheck,
}: {
  treeData: TreeDataNode[];
  checkedKeys: Key[];
  maxHeight: number;
  onCheck: NonNullable<TreeProps['onCheck']>;
}) {
  return (
    <div style={{ border: '1px solid #d9d9d9', borderRadius: 6, padding: 8, maxHeight, overflow: 'auto' }}>
      <Tree
        checkable
        selectable={false}
        defaultExpandAll
        key={treeData.length}
        treeData={treeData}
        checkedKeys={checkedKeys}
        onCheck={onCheck}
      />
    </div>
  );
}
