import type { PgSelect } from 'drizzle-orm/pg-core';
import type { PageRequest } from './paging.js';

/** A `select({ total: count() })` over the same rows and filter as the page, not yet run. */
type CountQuery = PromiseLike<readonly { total: number }[]>;

/**
 * One page of a list and the total its filter matches, as the list answers carry them.
 *
 * `counted` and `rows` are drizzle builders, which run only when awaited: the count runs first, then the page.
 * `rows` is the ordered select made dynamic (`.$dynamic()`) so that the page's limit and offset are added here.
 */
export async function pagedQuery<Q extends PgSelect>(
  counted: CountQuery,
  rows: Q,
  page: PageRequest,
): Promise<{ list: Awaited<Q>; total: number }> {
  const [{ total } = { total: 0 }] = await counted;
  const list = (await rows.limit(page.limit).offset(page.offset)) as Awaited<Q>;
  return { list, total: Number(total) };
}
