import { z } from 'zod';

/** Row ids are PostgreSQL `integer` columns: anything above overflows the column instead of matching no row. */
export const MAX_ROW_ID = 2_147_483_647;

/** What a caller sees for an id that can't be one (the request is wrong, not the user's input). */
export const INVALID_ID_MSG = '请求参数错误';

/** A row id sent as a JSON number. */
export const rowIdSchema = z
  .number({ error: INVALID_ID_MSG })
  .int(INVALID_ID_MSG)
  .positive(INVALID_ID_MSG)
  .max(MAX_ROW_ID, INVALID_ID_MSG);

/** A row id in a path, a query string or a form-data field, where it arrives as text. */
export const rowIdTextSchema = z.coerce
  .number({ error: INVALID_ID_MSG })
  .int(INVALID_ID_MSG)
  .positive(INVALID_ID_MSG)
  .max(MAX_ROW_ID, INVALID_ID_MSG);
