import { Grid, Table } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { isDisplayed, isOn, isValueType, tableColumnMinWidth, type CrfNode, type ItemState } from '@ecrf/core';
import { useCrfStore } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { CellField } from '../field-bindings';
import { ListGroupWidget } from './list-group-widget';
import { AddRowButton, RemoveRowButton, RowsHeading, RowsMessages } from './row-parts';
import type { BlockProps } from './widget-types';
import { titleOf } from './widget-utils';

interface TableRow {
  key: number;
  states: Record<string, ItemState>;
}

/** Value columns of a table shown on the page; groups inside a table contribute their items. */
function columnsOf(nodes: readonly CrfNode[]): CrfNode[] {
  return nodes.flatMap((child) =>
    !isDisplayed(child)
      ? []
      : isValueType(child.type)
        ? [child]
        : child.children.length > 0
          ? columnsOf(child.children)
          : [],
  );
}

/**
 * 表格: a grid of rows; below antd's md breakpoint (phones) the same rows as stacked cards, as a list
 * group shows them: a table as wide as its columns' minimum widths would scroll sideways on a phone.
 */
export function TableWidget(props: BlockProps) {
  const phone = Grid.useBreakpoint().md === false;
  return phone ? <ListGroupWidget {...props} /> : <TableGrid {...props} />;
}

/**
 * The rows of a list group shown as a grid, one column per child item, each at least as wide as
 * forms §9 says (core's tableColumnMinWidth: dates 180, numbers 150 + 16 per unit character, others
 * by their label).
 */
function TableGrid({ node, state, itemKey }: BlockProps) {
  const store = useCrfStore();
  const disabled = state.readOnly;
  const container = node.name;
  const children = columnsOf(node.children);
  const columns: ColumnsType<TableRow> = [
    {
      title: CRF_T.index,
      key: '#',
      width: 56,
      align: 'center',
      className: 'crf-table-aux',
      render: (_, record) => record.key + 1,
    },
    ...children.map((child) => ({
      key: child.name,
      minWidth: tableColumnMinWidth(child),
      title: (
        <span>
          {isOn(child.option.required) && (
            <span className="crf-required" aria-hidden>
              *
            </span>
          )}
          {titleOf(child)}
        </span>
      ),
      render: (_: unknown, record: TableRow) => {
        const cell = record.states[store.keyOf(child)];
        if (!cell?.visible) return null;
        return <CellField container={container} row={record.key} node={child} state={cell} layout="cell" />;
      },
    })),
  ];
  if (!disabled) {
    columns.push({
      title: CRF_T.actions,
      key: '$actions',
      width: 64,
      align: 'center',
      fixed: 'right',
      className: 'crf-table-aux',
      render: (_, record) => <RemoveRowButton container={container} index={record.key} />,
    });
  }
  const data: TableRow[] = (state.rows ?? []).map((states, index) => ({ key: index, states }));
  return (
    <div className="crf-rows crf-table" role="group" aria-label={titleOf(node) || undefined}>
      <RowsHeading node={node} state={state} />
      <Table<TableRow>
        size="small"
        bordered
        columns={columns}
        dataSource={data}
        pagination={false}
        tableLayout="auto"
        locale={{ emptyText: <div className="crf-empty">{CRF_T.empty}</div> }}
        scroll={{ x: 'max-content' }}
      />
      <AddRowButton container={container} disabled={disabled} />
      <RowsMessages state={state} itemKey={itemKey} />
    </div>
  );
}
