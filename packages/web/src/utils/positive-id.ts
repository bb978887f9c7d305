/**
 * The id an address names (a route parameter or a query parameter), or null when it is not a positive whole
 * number. `Number` reads it, so '' and a missing value are null, and ' 7 ' or '7.0' are 7, as the pages read
 * ids before.
 */
export function positiveIdOf(value: string | null | undefined): number | null {
  const id = Number(value);
  return Number.isInteger(id) && id > 0 ? id : null;
}
