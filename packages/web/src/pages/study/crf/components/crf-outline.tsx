import { useMemo, type ReactNode } from 'react';
import { Tag, Tree, type TreeDataNode } from 'antd';
import { ITEM_TYPE_LABELS, isOn, type CrfDefinition, type CrfNode } from '@ecrf/core';

export interface OutlineNode {
  key: string;
  title: string;
  name: string;
  typeLabel: string;
  required: boolean;
  children: OutlineNode[];
}

/** The definition as a plain tree of titles, types and names, keys unique by position. */
export function crfOutline(definition: Pick<CrfDefinition, 'children'>): OutlineNode[] {
  const convert = (nodes: readonly CrfNode[] | undefined, prefix: string): OutlineNode[] =>
    (nodes ?? []).map((node, index) => {
      const key = `${prefix}${index}`;
      return {
        key,
        title: node.title || node.option?.title || node.name,
        name: node.name,
        typeLabel: ITEM_TYPE_LABELS[node.type] ?? node.type,
        required: isOn(node.option?.required),
        children: convert(node.children, `${key}-`),
      };
    });
  return convert(definition.children, '');
}

function toTreeData(nodes: readonly OutlineNode[]): TreeDataNode[] {
  return nodes.map((node) => {
    const title: ReactNode = (
      <span>
        <Tag style={{ marginInlineEnd: 6 }}>{node.typeLabel}</Tag>
        {node.title}
        {node.required && <span style={{ color: '#ff4d4f', marginLeft: 4 }}>*</span>}
        {node.name && <span className="crf-outline-name">{node.name}</span>}
      </span>
    );
    return { key: node.key, title, children: node.children.length ? toTreeData(node.children) : undefined };
  });
}

/** A read-only outline of a CRF definition: every node with its type, title and name. */
export function CrfOutline({ definition }: { definition: Pick<CrfDefinition, 'children'> }) {
  const treeData = useMemo(() => toTreeData(crfOutline(definition)), [definition]);
  return (
    <div className="crf-outline">
      <Tree selectable={false} defaultExpandAll showLine treeData={treeData} />
    </div>
  );
}
