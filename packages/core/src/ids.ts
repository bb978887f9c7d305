import { z } from 'zod';

/** Row ids are PostgreSQL `integer` columns: anything above overflows the column instead of matching no row. */
export const MAX_ROW_ID = 2_147_483_647;

/** A row id sent as a JSON number. */
export const rowIdSchema = z.number().int().positive().max(MAX_ROW_ID);
