import { INVALID_ID_MSG, MAX_ROW_ID, rowIdSchema } from '@ecrf/core';
import { z } from 'zod';

export { MAX_ROW_ID };

/** A row id in a JSON body: a number that fits the integer column (ids ≥ 2³¹ used to reach the database and fail there). */
export const idSchema = rowIdSchema;

/** A row id in a path, a query string or a form-data field, where it arrives as text. */
export const idTextSchema = z.coerce
  .number({ error: INVALID_ID_MSG })
  .int(INVALID_ID_MSG)
  .positive(INVALID_ID_MSG)
  .max(MAX_ROW_ID, INVALID_ID_MSG);
