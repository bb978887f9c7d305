import { memo, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { Col, Row } from 'antd';
import { GRID_COLUMNS, gridSpan, isDisplayed, type CrfNode, type NumberLike } from '@ecrf/core';
import { useCrfStore, useStoreSlice } from './crf-store';
import { usePendingPattern, useProgressive, type PendingSlot } from './progressive';
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

/** Estimated heights of an item not rendered yet, by type (px), and the grid's gap between rows. */
const PENDING_HEIGHT = 76;
const PENDING_HEIGHTS: Readonly<Record<string, number>> = {
  title: 32,
  link: 32,
  listGroup: 160,
  table: 160,
  group: 160,
};
const ROW_GAP = 4;

/**
 * Where each unit of a run would lie, estimated: the visible ones laid out on the 24-column grid in rows, each
 * row as tall as its tallest estimate. `visible` holds a 1 or 0 per node.
 */
function runSlots(
  nodes: readonly CrfNode[],
  units: readonly number[],
  visible: string,
  crfCols: NumberLike | undefined,
): { slots: PendingSlot[]; height: number } {
  const slots: PendingSlot[] = [];
  let rowTop = 0;
  let rowHeight = 0;
  let used = 0;
  nodes.forEach((node, i) => {
    const at = units[i]!;
    if (visible[i] !== '1') {
      slots.push({ at, top: rowTop, height: 0 });
      return;
    }
    const span = spanOf(node, crfCols);
    if (used > 0 && used + span > GRID_COLUMNS) {
      rowTop += rowHeight + ROW_GAP;
      rowHeight = 0;
      used = 0;
    }
    const height = PENDING_HEIGHTS[node.type] ?? PENDING_HEIGHT;
    slots.push({ at, top: rowTop, height });
    rowHeight = Math.max(rowHeight, height);
    used += span;
  });
  return { slots, height: rowTop + rowHeight };
}

/**
 * A run of consecutive units progressive rendering has not reached yet: one empty block (no antd component) as
 * tall as their visible items are estimated to be. Near the viewport, the units estimated to lie there render at
 * once; what is left of the run is a new placeholder. Their values and checks are the store's meanwhile, as every
 * item's are.
 */
function PendingRun({ nodes, crfCols }: { nodes: readonly CrfNode[]; crfCols: NumberLike | undefined }) {
  const progressive = useProgressive();
  const store = useCrfStore();
  // One character per unit, so that the run renders again only when one of its units shows or hides.
  const visible = useStoreSlice(store, (s) => {
    let text = '';
    for (const node of nodes) text += s.state.items[s.keyOf(node)]?.visible && isDisplayed(node) ? '1' : '0';
    return text;
  });
  const { slots, height } = useMemo(
    () =>
      runSlots(
        nodes,
        nodes.map((node) => progressive?.unitOf(node) ?? -1),
        visible,
        crfCols,
      ),
    [nodes, progressive, visible, crfCols],
  );
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!progressive || !element) return;
    progressive.observe(element, slots);
    return () => progressive.unobserve(element);
  }, [progressive, slots]);
  return (
    <div
      ref={ref}
      className="crf-col-pending"
      style={{ height }}
      data-pending-items={nodes.length}
      aria-hidden="true"
    />
  );
}

/**
 * Children laid out on the 24-column grid. In a progressive form, each run of units not rendered yet is one
 * placeholder (PendingRun) instead of its items.
 */
export function CrfChildren({ nodes, crfCols }: { nodes: readonly CrfNode[]; crfCols: NumberLike | undefined }) {
  const pattern = usePendingPattern(nodes);
  const runs = useMemo(() => pendingRuns(nodes, pattern), [nodes, pattern]);
  const cells: ReactNode[] = [];
  nodes.forEach((child, i) => {
    const run = runs.get(i);
    if (run) cells.push(<PendingRun key={`pending ${i}-${i + run.length - 1}`} nodes={run} crfCols={crfCols} />);
    if (pattern[i] !== 'p') cells.push(<CrfNodeView key={child.name || `#${i}`} node={child} crfCols={crfCols} />);
  });
  return (
    <Row gutter={[24, 4]} className="crf-row">
      {cells}
    </Row>
  );
}

/** The runs of pending children (`p` in the pattern), by the index of each run's first child. */
function pendingRuns(nodes: readonly CrfNode[], pattern: string): Map<number, CrfNode[]> {
  const runs = new Map<number, CrfNode[]>();
  let run: CrfNode[] | null = null;
  nodes.forEach((node, i) => {
    if (pattern[i] !== 'p') {
      run = null;
      return;
    }
    if (!run) {
      run = [];
      runs.set(i, run);
    }
    run.push(node);
  });
  return runs;
}
