import { z } from 'zod';
import { DEFAULT_PAGE_NUM, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_ROW_ID } from '@ecrf/core';

// Bounded so the offset stays a number PostgreSQL reads as a bigint.
const positiveInt = z.coerce.number().int().min(1).max(MAX_ROW_ID);

/** platform §9: pageNum, or pageNo, or page; with pageSize. Spread into a route's query schema. */
export const pagingQuery = {
  pageNum: positiveInt.optional(),
  pageNo: positiveInt.optional(),
  page: positiveInt.optional(),
  pageSize: positiveInt.optional(),
};

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
