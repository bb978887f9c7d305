export {
  actionsColumn,
  columnWidth,
  FLEX_MIN_WIDTH,
  KIND_WIDTH,
  tableWidth,
  fitColumns,
  toTableColumns,
  type ActionsColumn,
  type ColumnKind,
  type DataColumn,
  type PageColumn,
  type SearchField,
} from './columns';
export { EllipsisText } from './ellipsis-text';
export { INLINE_ACTIONS, RowActions, rowActionsWidth, splitActions, type RowAction } from './row-actions';
export { StatusSwitch } from './status-switch';
export { useContainerWidth } from './use-container-width';
export { TablePage, type TablePageProps } from './table-page';
export { useListMutation, useSaveMutation } from './use-list-mutation';
