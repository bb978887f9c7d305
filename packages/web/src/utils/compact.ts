/** Empty filter inputs are left out of a query rather than sent as empty strings. */
export function compact<F extends object>(filters: F): Partial<F> {
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ) as Partial<F>;
}
