import { DEFAULT_PAGE_NUM, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@ecrf/core';

/** One page of a list, as the services read it (the HTTP parameters are in http/paging.ts). */
export interface PageRequest {
  pageNum: number;
  pageSize: number;
  limit: number;
  offset: number;
}

export function pageRequest(q: { pageNum?: number; pageNo?: number; page?: number; pageSize?: number }): PageRequest {
  const pageNum = q.pageNum ?? q.pageNo ?? q.page ?? DEFAULT_PAGE_NUM;
  // The load-all request (999999) is honoured up to a cap so one call can't exhaust memory.
  const pageSize = Math.min(q.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { pageNum, pageSize, limit: pageSize, offset: (pageNum - 1) * pageSize };
}
