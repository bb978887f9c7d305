import { MAX_ROW_ID, rowIdSchema, rowIdTextSchema } from '@ecrf/core';

export { MAX_ROW_ID };

/** A row id in a JSON body: a number that fits the integer column (ids ≥ 2³¹ used to reach the database and fail there). */
export const idSchema = rowIdSchema;

/** A row id in a path, a query string or a form-data field, where it arrives as text. */
export const idTextSchema = rowIdTextSchema;
