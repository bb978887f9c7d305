/** platform §9: default page 1, size 10; the load-all request asks for 999999. */
export const DEFAULT_PAGE_NUM = 1;
export const DEFAULT_PAGE_SIZE = 10;
export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;
export const LOAD_ALL_PAGE_SIZE = 999999;
/** The server never answers more rows than this in one page, whatever is asked. */
export const MAX_PAGE_SIZE = 5000;

/** The page a list asks for (pageNum from 1). */
export interface Paging {
  pageNum: number;
  pageSize: number;
}

export interface Page<T> {
  list: T[];
  total: number;
}

/** Index shown in a paged table's first column; numbering continues across pages. */
export function rowIndex(pageNum: number, pageSize: number, indexInPage: number): number {
  return (pageNum - 1) * pageSize + indexInPage + 1;
}
