import { useMemo, useState, type Key, type ReactNode } from 'react';
import { useQuery, type QueryKey } from '@tanstack/react-query';
import { Table, type TableProps } from 'antd';
import type { Page } from '@ecrf/core';
import { PagedTable, type Paging } from '../paged-table';
import { fitColumns, SELECTION_COLUMN_WIDTH, tableWidth, toTableColumns, type PageColumn } from './columns';
import { defaultFilters, SearchForm, searchFields } from './search-form';
import { useContainerWidth } from './use-container-width';

type PassedTableProps<T> = Omit<
  TableProps<T>,
  'columns' | 'dataSource' | 'pagination' | 'loading' | 'rowKey' | 'scroll' | 'size' | 'tableLayout'
>;

interface TablePageBase<T extends object, F extends object> {
  /** The search form's name: its fields' ids start with it. */
  name: string;
  columns: readonly PageColumn<T>[];
  rowKey: string | ((row: T) => Key);
  /** The buttons above the table (新增 …). */
  toolbar?: ReactNode;
  /** Turns the search form's values into the filters sent to the server (trimmed, empty ones left out by default). */
  toFilters?: (values: Record<string, unknown>) => F;
  /** The search form's first values (a page opened filtered from a link); read once, when the page opens. */
  initialValues?: Record<string, unknown>;
  /** The 序号 column of platform §9 (on by default; a tree has none). */
  showIndex?: boolean;
  table?: PassedTableProps<T>;
}

/** A list paged on the server: `fetchPage` gets the paging and the filters. */
interface ServerPaged<T extends object, F extends object> extends TablePageBase<T, F> {
  queryKey: QueryKey;
  fetchPage: (query: Paging & F) => Promise<Page<T>>;
  fetchAll?: never;
  rows?: never;
}

/**
 * A list loaded whole for the filters (`[...queryKey, filters]`), paged in the browser, or shown entire when
 * `paged` is false (a tree: departments, menus).
 */
interface LoadedWhole<T extends object, F extends object> extends TablePageBase<T, F> {
  queryKey: QueryKey;
  fetchAll: (filters: F) => Promise<T[]>;
  /** Shapes the loaded rows (a tree built from a flat list). */
  select?: (rows: T[]) => T[];
  paged?: boolean;
  fetchPage?: never;
  rows?: never;
}

/** Rows the page loaded itself, paged in the browser, or shown entire when `paged` is false (a short fixed set). */
interface GivenRows<T extends object, F extends object> extends TablePageBase<T, F> {
  rows: readonly T[];
  loading?: boolean;
  paged?: boolean;
  fetchPage?: never;
  fetchAll?: never;
}

export type TablePageProps<T extends object, F extends object> =
  ServerPaged<T, F> | LoadedWhole<T, F> | GivenRows<T, F>;

/**
 * A list page's body in the manner of Ant Design Pro's ProTable, kept small: a search form built from the
 * columns marked searchable, a toolbar, and a middle-size table whose columns are declared once with the widths
 * of their kind, laid out at the sum of those widths (scrolling sideways only when the screen is narrower) with
 * the actions fixed at the right. Paging follows platform §9 through PagedTable.
 */
export function TablePage<T extends object, F extends object = Record<string, unknown>>(props: TablePageProps<T, F>) {
  const { name, columns, rowKey, toolbar, toFilters, table, initialValues } = props;
  const [filters, setFilters] = useState<F>(() =>
    initialValues ? ((toFilters ?? defaultFilters)(initialValues) as F) : ({} as F),
  );
  const [container, available] = useContainerWidth();

  const whole = 'fetchAll' in props && props.fetchAll ? props : null;
  const loaded = useQuery({
    queryKey: [...(whole?.queryKey ?? ['table-page']), filters],
    queryFn: () => whole!.fetchAll(filters),
    enabled: Boolean(whole),
  });
  const select = whole?.select;
  const wholeRows = useMemo(() => (select ? select(loaded.data ?? []) : (loaded.data ?? [])), [select, loaded.data]);

  const given = 'rows' in props && props.rows ? props : null;
  const paged = (whole ?? given)?.paged !== false;
  const showIndex = props.showIndex ?? paged;
  const sizes = { index: showIndex, selection: Boolean(table?.rowSelection) };
  const shown = fitColumns(columns, available, sizes);
  const fields = searchFields(columns);
  const common = {
    ...table,
    rowSelection: table?.rowSelection && { columnWidth: SELECTION_COLUMN_WIDTH, ...table.rowSelection },
    rowKey,
    columns: toTableColumns(shown),
    size: 'middle' as const,
    tableLayout: 'fixed' as const,
    scroll: { x: tableWidth(shown, sizes) },
  };

  const search = (
    <SearchForm
      name={name}
      fields={fields}
      initialValues={initialValues}
      onSearch={(values) => setFilters((toFilters ?? defaultFilters)(values) as F)}
      onReset={() => setFilters({} as F)}
    />
  );

  let body: ReactNode;
  if ('fetchPage' in props && props.fetchPage) {
    const fetchPage = props.fetchPage;
    body = (
      <PagedTable<T>
        {...common}
        showIndex={showIndex}
        queryKey={props.queryKey}
        filters={filters}
        fetchPage={(paging) => fetchPage({ ...paging, ...filters })}
      />
    );
  } else {
    const rows = whole ? wholeRows : given!.rows;
    const loading = whole ? loaded.isFetching : given!.loading;
    body = paged ? (
      <PagedTable<T> {...common} showIndex={showIndex} rows={rows} loading={loading} filters={filters} />
    ) : (
      <Table<T>
        {...common}
        // A tree opens all its levels when it first has rows.
        key={rows.length > 0 ? 'loaded' : 'empty'}
        dataSource={rows}
        loading={loading}
        pagination={false}
      />
    );
  }

  return (
    <>
      {search}
      {toolbar && (
        <div className="page-toolbar" style={{ alignItems: 'center' }}>
          {toolbar}
        </div>
      )}
      <div ref={container}>{body}</div>
    </>
  );
}
