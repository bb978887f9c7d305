import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { buildTree, STATUS } from '@ecrf/core';
import { queryKeys } from '../../api/query-keys';
import { deptApi, type Dept } from '../../api/system.api';
import { COMMON_TEXT } from '../../locales/common.zh-CN';

export const STATUS_OPTIONS = [
  { value: STATUS.normal, label: COMMON_TEXT.statusNormal },
  { value: STATUS.disabled, label: COMMON_TEXT.statusDisabled },
];

export function StatusTag({ status }: { status: number }) {
  return status === STATUS.normal ? (
    <Tag color="success">{COMMON_TEXT.statusNormal}</Tag>
  ) : (
    <Tag color="default">{COMMON_TEXT.statusDisabled}</Tag>
  );
}

/** antd tables draw an expander for any children array, so leaves must carry none. */
export function withoutEmptyChildren<N extends { children?: N[] }>(nodes: N[], order?: (a: N, b: N) => number): N[] {
  const sorted = order ? [...nodes].sort(order) : nodes;
  return sorted.map((node) => {
    const children = node.children?.length ? withoutEmptyChildren(node.children, order) : undefined;
    const { children: _drop, ...rest } = node;
    return (children ? { ...rest, children } : rest) as N;
  });
}

export interface TreeSelectNode {
  value: number;
  title: string;
  disabled?: boolean;
  children?: TreeSelectNode[];
}

export function deptTreeData(depts: readonly Dept[], disabledId?: number): TreeSelectNode[] {
  const convert = (dept: Dept, disabled: boolean): TreeSelectNode => {
    const off = disabled || dept.deptId === disabledId;
    return {
      value: dept.deptId,
      title: dept.deptName,
      disabled: off,
      children: dept.children?.length ? dept.children.map((child) => convert(child, off)) : undefined,
    };
  };
  const tree = withoutEmptyChildren(
    buildTree(depts, (d) => d.deptId),
    (a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0),
  );
  return tree.map((dept) => convert(dept, false));
}

/** The department tree for pickers (所属机构, 上级机构), shared with the organization page. */
export function useDeptTree(disabledId?: number) {
  const query = useQuery({
    queryKey: queryKeys.dept.list({}),
    queryFn: () => deptApi.list().then((res) => res.data),
  });
  const treeData = useMemo(() => deptTreeData(query.data ?? [], disabledId), [query.data, disabledId]);
  return { treeData, isLoading: query.isLoading };
}
