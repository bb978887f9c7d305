import { memo, useCallback } from 'react';
import { Col, Row } from 'antd';
import { GRID_COLUMNS, gridSpan, isDisplayed, type CrfNode, type NumberLike } from '@ecrf/core';
import { useCrfStore, useStoreSlice } from './crf-store';
import { useProgressive, useRendered } from './progressive';
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
  const rendered = useRendered(node);
  useRenderProbe(key);
  if (!state || !state.visible || !isDisplayed(node)) return null;
  if (!rendered) return <PendingNode node={node} crfCols={crfCols} />;
  const block = renderBlock({ node, state, itemKey: key, crfCols });
  return (
    <Col span={spanOf(node, crfCols)} className="crf-col" data-item={node.name || undefined}>
      {block ?? <TopLevelField node={node} state={state} itemKey={key} />}
    </Col>
  );
});

/**
 * A node progressive rendering has not reached yet: an empty cell of about its height, rendered at once when it
 * comes near the viewport. Its value and checks are the store's meanwhile, as every item's are.
 */
function PendingNode({ node, crfCols }: { node: CrfNode; crfCols: NumberLike | undefined }) {
  const progressive = useProgressive();
  const observe = useCallback(
    (element: HTMLDivElement | null) => {
      if (!progressive || !element) return;
      progressive.observe(element, node);
      return () => progressive.unobserve(element);
    },
    [progressive, node],
  );
  // A plain cell, not a Col: hundreds of them are made at once. The row is a wrapping flex box.
  const width = `${(spanOf(node, crfCols) / GRID_COLUMNS) * 100}%`;
  return (
    <div
      ref={observe}
      className={`crf-col-pending crf-col-pending-${node.type}`}
      style={{ flex: `0 0 ${width}`, maxWidth: width }}
      data-pending-item={node.name || undefined}
      aria-hidden="true"
    />
  );
}

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
