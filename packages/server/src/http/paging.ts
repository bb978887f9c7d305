import { pagingQueryFields } from '@ecrf/core';

export { pageRequest, type PageRequest } from '../shared/paging.js';

/** platform §9: pageNum, or pageNo, or page; with pageSize. Spread into a route's query schema (core's contract). */
export const pagingQuery = pagingQueryFields;
