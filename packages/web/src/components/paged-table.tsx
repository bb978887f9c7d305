import { useEffect, useMemo, useRef, useState, type Key } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Pagination, Select, Table, type TableColumnsType, type TableProps } from 'antd';
import { DEFAULT_PAGE_NUM, DEFAULT_PAGE_SIZE, PAGE_SIZE_OPTIONS, rowIndex, type Page, type Paging } from '@ecrf/core';
import { COMMON_TEXT } from '../locales/common.zh-CN';
import { scrollTo } from '../utils/scroll-to';

export type { Paging } from '@ecrf/core';

/** platform §9: the index column is 100 wide. */
export const INDEX_COLUMN_WIDTH = 100;

interface PagedTableProps<T> extends Omit<TableProps<T>, 'columns' | 'dataSource' | 'pagination' | 'loading'> {
  columns: TableColumnsType<T>;
  rowKey: string | ((row: T) => Key);
  /** Server paging: the cache key of the list; filters and paging are appended to it. */
  queryKey?: readonly unknown[];
  fetchPage?: (paging: Paging) => Promise<Page<T>>;
  /** The current filters: part of the cache key, and a change goes back to page 1. */
  filters?: object;
  /** Client paging over an already loaded list (the open study list is fetched once). */
  rows?: readonly T[];
  loading?: boolean;
  showIndex?: boolean;
}

/**
 * The product's table (platform §9): page sizes 10/20/50/100 (default 10), bar laid out as
 * total, sizes, prev, pager, next, jumper with at most 5 page buttons, an index column that
 * continues across pages, and an 800 ms scroll back to the top after a page change.
 */
export function PagedTable<T extends object>({
  columns,
  rowKey,
  queryKey,
  fetchPage,
  filters,
  rows,
  loading,
  showIndex = true,
  ...tableProps
}: PagedTableProps<T>) {
  const [paging, setPaging] = useState<Paging>({ pageNum: DEFAULT_PAGE_NUM, pageSize: DEFAULT_PAGE_SIZE });
  const filterKey = JSON.stringify(filters ?? {});
  const firstFilters = useRef(filterKey);

  useEffect(() => {
    if (firstFilters.current === filterKey) return;
    firstFilters.current = filterKey;
    setPaging((p) => ({ ...p, pageNum: DEFAULT_PAGE_NUM }));
  }, [filterKey]);

  const query = useQuery({
    queryKey: [...(queryKey ?? ['paged-table']), filters ?? {}, paging],
    queryFn: () => fetchPage!(paging),
    enabled: Boolean(fetchPage),
    placeholderData: keepPreviousData,
  });

  const serverRows = query.data?.list;
  const total = fetchPage ? (query.data?.total ?? 0) : (rows?.length ?? 0);
  const pageRows = useMemo(() => {
    if (fetchPage) return serverRows ?? [];
    const start = (paging.pageNum - 1) * paging.pageSize;
    return (rows ?? []).slice(start, start + paging.pageSize);
  }, [fetchPage, serverRows, rows, paging]);

  const allColumns = useMemo<TableColumnsType<T>>(() => {
    if (!showIndex) return columns;
    return [
      {
        title: COMMON_TEXT.index,
        key: '__index',
        width: INDEX_COLUMN_WIDTH,
        align: 'center',
        render: (_value: unknown, _row: T, index: number) => rowIndex(paging.pageNum, paging.pageSize, index),
      },
      ...columns,
    ];
  }, [columns, showIndex, paging]);

  return (
    <div className="paged-table">
      <Table<T>
        scroll={{ x: 'max-content' }}
        {...tableProps}
        rowKey={rowKey}
        columns={allColumns}
        dataSource={pageRows}
        loading={loading ?? query.isFetching}
        pagination={false}
      />
      <PagingBar paging={paging} total={total} onChange={setPaging} />
    </div>
  );
}

/**
 * The paging bar of platform §9 under a list (a table, the study cards): total, page sizes, prev, at most 5 page
 * buttons, next and jumper. Another page size starts again from page 1; a change scrolls back to the top.
 */
export function PagingBar({
  paging,
  total,
  onChange,
}: {
  paging: Paging;
  total: number;
  onChange: (update: (current: Paging) => Paging) => void;
}) {
  const changePage = (pageNum: number, pageSize: number) => {
    onChange((current) =>
      pageSize !== current.pageSize ? { pageNum: DEFAULT_PAGE_NUM, pageSize } : { pageNum, pageSize },
    );
    void scrollTo(0);
  };
  return (
    <div className="paged-table-bar">
      <span className="paged-table-total">{COMMON_TEXT.total(total)}</span>
      <Select
        aria-label="每页条数"
        value={paging.pageSize}
        style={{ width: 110 }}
        options={PAGE_SIZE_OPTIONS.map((size) => ({ value: size, label: COMMON_TEXT.pageSize(size) }))}
        onChange={(size: number) => changePage(DEFAULT_PAGE_NUM, size)}
      />
      <Pagination
        current={paging.pageNum}
        pageSize={paging.pageSize}
        total={total}
        showLessItems
        showQuickJumper
        showSizeChanger={false}
        onChange={changePage}
      />
    </div>
  );
}
