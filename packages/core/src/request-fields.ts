import { z } from 'zod';
import { MAX_ROW_ID, rowIdTextSchema } from './ids.js';

/**
 * Request pieces every area's contract shares: the paging fields of a list, a study named in the query, an id in
 * the path or the query. The server's routes and the browser's calls read the same ones.
 */

// Bounded so the offset stays a number PostgreSQL reads as a bigint.
const positiveInt = z.coerce.number().int().min(1).max(MAX_ROW_ID);

/** platform §9: pageNum, or pageNo, or page; with pageSize. Spread into a list's query (or body) schema. */
export const pagingQueryFields = {
  pageNum: positiveInt.optional(),
  pageNo: positiveInt.optional(),
  page: positiveInt.optional(),
  pageSize: positiveInt.optional(),
};

/** `?studyId=`: the routes that name their study in the query. */
export const studyIdQuerySchema = z.object({ studyId: rowIdTextSchema });

/** `/:id` or `?id=`: one row named by its id. */
export const idParamSchema = z.object({ id: rowIdTextSchema });
