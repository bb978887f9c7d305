import { memo } from 'react';
import { Col, Row } from 'antd';
import { GRID_COLUMNS, gridSpan, isDisplayed, type CrfNode, type NumberLike } from '@ecrf/core';
import { useCrfStore, useStoreSlice } from './crf-store';
import { TopLevelField } from './field-bindings';
import { useRenderProbe } from './render-probe';
import { renderBlock } from './widget-registry';

/** Blocks that take a whole row unless their own cols say otherwise. */
const FULL_ROW = new Set(['section', 'group', 'card', 'listGroup', 'table', 'title']);

/** An item's span in the 24-column grid (forms §9): core's gridSpan of its cols over the section's crfCols. */
export function spanOf(node: CrfNode, crfCols: NumberLike | undefined): number {
  if (FULL_ROW.has(node.type) && (node.option.cols === undefined || node.option.cols === '')) return GRID_COLUMNS;
  return gridSpan(node.option.cols, crfCols);
}

/**
 * One node of the tree. It subscribes to its own state only, so a change elsewhere in the form does
 * not render it; a hidden node renders nothing (its value is already cleared by the engine).
 */
export const CrfNodeView = memo(function CrfNodeView({
  node,
  crfCols,
}: {
  node: CrfNode;
  crfCols: NumberLike | undefined;
}) {
  const store = useCrfStore();
  const key = store.keyOf(node);
  const state = useStoreSlice(store, (s) => s.state.items[key]);
  useRenderProbe(key);
  if (!state || !state.visible || !isDisplayed(node)) return null;
  const block = renderBlock({ node, state, itemKey: key, crfCols });
  return (
    <Col span={spanOf(node, crfCols)} className="crf-col" data-item={node.name || undefined}>
      {block ?? <TopLevelField node={node} state={state} itemKey={key} />}
    </Col>
  );
});

/** Children laid out on the 24-column grid. */
export function CrfChildren({ nodes, crfCols }: { nodes: readonly CrfNode[]; crfCols: NumberLike | undefined }) {
  return (
    <Row gutter={[24, 4]} className="crf-row">
      {nodes.map((child, i) => (
        <CrfNodeView key={child.name || `#${i}`} node={child} crfCols={crfCols} />
      ))}
    </Row>
  );
}
