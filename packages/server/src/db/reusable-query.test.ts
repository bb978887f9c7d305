import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../test/test-db.js';
import type { Database, Db } from './client.js';
import { reusableSelect } from './reusable-query.js';
import { departments } from './schema/index.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase(inject('pgliteTemplate'));
  await database.migrate();
});
afterAll(() => database.close());

const shape = (db: Db) =>
  db
    .select({
      dept: { id: departments.deptId, name: departments.deptName },
      parentId: departments.parentId,
      createdAt: departments.createdAt,
      children: sql<number>`(select count(*) from departments d where d.parent_id = departments.dept_id)`.mapWith(
        Number,
      ),
    })
    .from(departments);

const byName = reusableSelect('test_departments_by_name', (db) =>
  shape(db).where(and(eq(departments.deptName, sql.placeholder('name')), eq(departments.status, 0))),
);

describe('a select built once', () => {
  it('answers the rows the builder itself answers, mapped the same way, for each call’s values', async () => {
    const { db } = database;
    const [root] = await db
      .insert(departments)
      .values({ deptName: '复用查询-总院', parentId: 0 })
      .returning({ id: departments.deptId });
    await db.insert(departments).values({ deptName: '复用查询-分院', parentId: root!.id });

    for (const name of ['复用查询-总院', '复用查询-分院', '不存在的机构']) {
      const direct = await shape(db).where(and(eq(departments.deptName, name), eq(departments.status, 0)));
      const reused = await byName(db, { name });
      expect(reused).toEqual(direct);
    }
    const [first] = await byName(db, { name: '复用查询-总院' });
    expect(first).toMatchObject({ dept: { id: root!.id, name: '复用查询-总院' }, parentId: 0, children: 1 });
    expect(first!.createdAt).toBeInstanceOf(Date);
  });

  it('runs inside the transaction of the handle it is given, not beside it on the pool', async () => {
    const { db } = database;
    const seenInside = await db
      .transaction(async (tx) => {
        await tx.insert(departments).values({ deptName: '复用查询-未提交', parentId: 0 });
        const rows = await byName(tx, { name: '复用查询-未提交' });
        throw Object.assign(new Error('roll back'), { rows });
      })
      .catch((err: { rows?: unknown[] }) => err.rows);
    expect(seenInside).toHaveLength(1);
    expect(await byName(db, { name: '复用查询-未提交' })).toEqual([]);
  });
});
