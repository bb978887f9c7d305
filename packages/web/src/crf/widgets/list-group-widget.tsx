import { Col, Row } from 'antd';
import { isContainerType, isDisplayed, isValueType, type CrfNode, type ItemState, type NumberLike } from '@ecrf/core';
import { spanOf } from '../crf-node';
import { useCrfStore } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { CellField } from '../field-bindings';
import { LinkWidget } from './link-widget';
import { AddRowButton, RemoveRowButton, RowsHeading, RowsMessages } from './row-parts';
import { TitleWidget } from './title-widget';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

/** At most this many columns share a line in a list-group row unless crfCols says otherwise. */
const ROW_COLUMNS = 4;

/**
 * 列表组: repeated rows of the child items, each row a small form. Rows are added and removed here;
 * the engine evaluates every row (visibility, calculations, crfRules) and its verdict is shown.
 */
export function ListGroupWidget({ node, state, itemKey }: BlockProps) {
  const rows = state.rows ?? [];
  const disabled = state.readOnly;
  const crfCols = node.option.crfCols ?? Math.min(Math.max(node.children.length, 1), ROW_COLUMNS);
  return (
    <div className="crf-rows crf-list-group" role="group" aria-label={titleOf(node) || undefined}>
      <RowsHeading node={node} state={state} />
      {rows.length === 0 && <div className="crf-empty">{CRF_T.empty}</div>}
      {rows.map((row, index) => (
        <div className="crf-list-row" key={index}>
          <div className="crf-list-row-head">
            <span className="crf-list-row-index">{CRF_T.rowTitle(index + 1)}</span>
            {!disabled && <RemoveRowButton container={node.name} index={index} label />}
          </div>
          <Row gutter={[16, 4]} className="crf-row">
            <RowNodes nodes={node.children} container={node.name} index={index} row={row} crfCols={crfCols} />
          </Row>
        </div>
      ))}
      <AddRowButton container={node.name} disabled={disabled} />
      <RowsMessages state={state} itemKey={itemKey} />
    </div>
  );
}

interface RowNodesProps {
  nodes: readonly CrfNode[];
  container: string;
  index: number;
  row: Record<string, ItemState>;
  crfCols: NumberLike | undefined;
}

/** The items of one row; groups inside a row show their items in place. */
function RowNodes({ nodes, container, index, row, crfCols }: RowNodesProps) {
  const store = useCrfStore();
  return (
    <>
      {nodes.map((child, i) => {
        const cell = row[store.keyOf(child)];
        if (!cell?.visible || !isDisplayed(child)) return null;
        const key = child.name || `#${i}`;
        if (isContainerType(child.type)) {
          return (
            <RowNodes
              key={key}
              nodes={child.children}
              container={container}
              index={index}
              row={row}
              crfCols={child.option.crfCols ?? crfCols}
            />
          );
        }
        if (!isValueType(child.type)) {
          return (
            <Col key={key} span={24} className="crf-col">
              {child.type === 'link' ? <LinkWidget node={child} /> : <TitleWidget node={child} />}
            </Col>
          );
        }
        return (
          <Col key={key} span={spanOf(child, crfCols)} className="crf-col">
            <CellField container={container} row={index} node={child} state={cell} layout="field" />
          </Col>
        );
      })}
    </>
  );
}
