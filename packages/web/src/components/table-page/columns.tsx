import type { ReactNode } from 'react';
import type { TableColumnType, TreeSelectProps } from 'antd';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { DATE_FORMAT, formatDate } from '../../utils/format-date';
import { INDEX_COLUMN_WIDTH } from '../paged-table';
import { EllipsisText } from './ellipsis-text';
import './table-page.css';
import { INLINE_ACTIONS, RowActions, rowActionsWidth, type RowAction } from './row-actions';

/**
 * What a column holds decides its width and its cut. Widths are for a middle-size table (8 px cell padding):
 * - text: cut with an ellipsis and the whole text in a tooltip;
 * - number: short and centred;
 * - date: YYYY-MM-DD; datetime: YYYY-MM-DD HH:mm:ss (the platform's format), never cut;
 * - status: a tag or a 正常/停用 switch;
 * - actions: fixed at the right, as wide as its links need.
 */
export type ColumnKind = 'text' | 'number' | 'date' | 'datetime' | 'status' | 'actions';

export const KIND_WIDTH: Record<Exclude<ColumnKind, 'actions'>, number> = {
  text: 120,
  number: 80,
  date: 100,
  datetime: 160,
  status: 90,
};

/** A flexible text column (no width of its own) never gets narrower than this. */
export const FLEX_MIN_WIDTH = 140;
/** The checkbox column of a selectable table. */
export const SELECTION_COLUMN_WIDTH = 40;

export type SearchType = 'input' | 'select' | 'tree-select' | 'date-range';

/** A filter of the search form above the table, built from the column that declares it. */
export interface SearchField {
  /** The form field; the column's dataIndex by default. */
  name?: string;
  /** The label; the column's title by default. */
  label?: string;
  type?: SearchType;
  options?: ReadonlyArray<{ value: string | number; label: string }>;
  treeData?: TreeSelectProps['treeData'];
  width?: number;
  placeholder?: string | [string, string];
}

interface BaseColumn {
  /** Unique among the columns; the dataIndex by default. */
  key?: string;
  title: string;
  /**
   * May be left out when the table would not fit the page otherwise; lower numbers go first. Only for data a person
   * finds elsewhere too (the detail dialog, the audit trail).
   */
  hideOrder?: number;
  /** Declares a filter of the search form. */
  search?: SearchField | true;
  /** Search fields are laid out in column order unless told otherwise. */
  searchOrder?: number;
}

export interface DataColumn<T> extends BaseColumn {
  kind?: Exclude<ColumnKind, 'actions'>;
  dataIndex?: string;
  /** A fixed width; without it a text column takes the room left, never below `minWidth`. */
  width?: number;
  minWidth?: number;
  /** Text columns are cut by default; a column whose cell wraps by design says false. */
  ellipsis?: boolean;
  align?: 'left' | 'center' | 'right';
  fixed?: 'left';
  render?: (value: any, row: T, index: number) => ReactNode;
  /** The whole text of a cut cell, when `render` returns something other than a string. */
  text?: (row: T) => string;
}

export interface ActionsColumn<T> extends BaseColumn {
  kind: 'actions';
  actions: readonly RowAction<T>[];
  /** Places for links in a row (3 by default): with more actions, the last place becomes 更多. */
  inline?: number;
  /** Links stacked in a narrow column (phones). */
  vertical?: boolean;
}

export type PageColumn<T> = DataColumn<T> | ActionsColumn<T>;

export const isActions = <T,>(column: PageColumn<T>): column is ActionsColumn<T> => column.kind === 'actions';

export function columnKey<T>(column: PageColumn<T>): string {
  return column.key ?? (isActions(column) ? 'actions' : (column.dataIndex ?? column.title));
}

/** The width a column takes at the least: its own, its kind's, or (flexible text) its minimum. */
export function columnWidth<T>(column: PageColumn<T>): number {
  if (isActions(column)) return rowActionsWidth(column.actions, column.inline, column.vertical);
  if (column.width !== undefined) return column.width;
  const kind = column.kind ?? 'text';
  return kind === 'text' ? (column.minWidth ?? FLEX_MIN_WIDTH) : KIND_WIDTH[kind];
}

const valueOf = (row: unknown, dataIndex: string | undefined): unknown =>
  dataIndex === undefined ? undefined : (row as Record<string, unknown>)[dataIndex];

const asText = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/**
 * The columns that fit `available` pixels: the optional ones (`hideOrder`) are left out, lowest first, until the
 * table fits or none is left. An unknown width (0, not measured yet) keeps every column.
 */
export function fitColumns<T>(
  columns: readonly PageColumn<T>[],
  available: number,
  options: TableWidthOptions = {},
): PageColumn<T>[] {
  if (available <= 0) return [...columns];
  const droppable = columns
    .filter((column) => column.hideOrder !== undefined)
    .sort((a, b) => a.hideOrder! - b.hideOrder!);
  let shown = [...columns];
  for (const column of droppable) {
    if (tableWidth(shown, options) <= available) break;
    shown = shown.filter((candidate) => candidate !== column);
  }
  return shown;
}

/** Our column declarations as antd columns, with the widths, cuts and tooltips of their kind. */
export function toTableColumns<T>(columns: readonly PageColumn<T>[]): TableColumnType<T>[] {
  return columns.map((column): TableColumnType<T> => {
    const key = columnKey(column);
    if (isActions(column)) {
      return {
        key,
        title: column.title,
        fixed: 'right',
        width: columnWidth(column),
        render: (_: unknown, row: T) => (
          <RowActions row={row} actions={column.actions} inline={column.inline} vertical={column.vertical} />
        ),
      };
    }
    const kind = column.kind ?? 'text';
    const flexible = kind === 'text' && column.width === undefined;
    const cut = column.ellipsis ?? kind === 'text';
    const format = (value: unknown, row: T, index: number): ReactNode => {
      if (column.render) return column.render(value, row, index);
      if (kind === 'datetime') return formatDate(asText(value));
      if (kind === 'date') return formatDate(asText(value), DATE_FORMAT);
      return asText(value);
    };
    return {
      key,
      title: cut ? <EllipsisText text={column.title} /> : column.title,
      dataIndex: column.dataIndex,
      fixed: column.fixed,
      width: flexible ? undefined : columnWidth(column),
      align: column.align ?? (kind === 'number' ? 'center' : undefined),
      ellipsis: cut ? { showTitle: false } : undefined,
      render: (_: unknown, row: T, index: number) => {
        const value = valueOf(row, column.dataIndex);
        const shown = format(value, row, index);
        if (!cut) return shown;
        const text = column.text ? column.text(row) : typeof shown === 'string' ? shown : null;
        return text === null ? shown : <EllipsisText text={text}>{shown}</EllipsisText>;
      },
    };
  });
}

/**
 * The width the table is laid out at (its `scroll.x`): every column at its width, flexible ones at their minimum,
 * plus the index and selection columns. A wider container stretches the flexible columns; a narrower one scrolls.
 */
export interface TableWidthOptions {
  /** The 序号 column of platform §9. */
  index?: boolean;
  /** The checkbox column of a selectable table. */
  selection?: boolean;
}

export function tableWidth<T>(columns: readonly PageColumn<T>[], options: TableWidthOptions = {}): number {
  return (
    columns.reduce((sum, column) => sum + columnWidth(column), 0) +
    (options.index ? INDEX_COLUMN_WIDTH : 0) +
    (options.selection ? SELECTION_COLUMN_WIDTH : 0)
  );
}

/** The actions column with the common title, for pages that declare only its links. */
export function actionsColumn<T>(
  actions: readonly RowAction<T>[],
  inline = INLINE_ACTIONS,
  vertical = false,
): ActionsColumn<T> {
  return { kind: 'actions', title: COMMON_TEXT.actions, actions, inline, vertical };
}
