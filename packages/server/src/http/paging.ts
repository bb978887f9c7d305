import { z } from 'zod';
import { MAX_ROW_ID } from '@ecrf/core';

export { pageRequest, type PageRequest } from '../shared/paging.js';

// Bounded so the offset stays a number PostgreSQL reads as a bigint.
const positiveInt = z.coerce.number().int().min(1).max(MAX_ROW_ID);

/** platform §9: pageNum, or pageNo, or page; with pageSize. Spread into a route's query schema. */
export const pagingQuery = {
  pageNum: positiveInt.optional(),
  pageNo: positiveInt.optional(),
  page: positiveInt.optional(),
  pageSize: positiveInt.optional(),
};
