import { and, asc, eq, ilike, isNull, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { departments, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';

export interface DeptInput {
  parentId: number;
  deptName: string;
  orderNum?: number;
  leader?: string | null;
  phone?: string | null;
  status?: number;
}

const notFound = () => AppError.notFound('dept.not_found', '机构不存在');

const deptColumns = {
  deptId: departments.deptId,
  parentId: departments.parentId,
  deptName: departments.deptName,
  orderNum: departments.orderNum,
  leader: departments.leader,
  phone: departments.phone,
  status: departments.status,
  createTime: departments.createdAt,
};

export async function listDepts(ctx: AppContext, filter: { deptName?: string; status?: number }) {
  return ctx.db
    .select(deptColumns)
    .from(departments)
    .where(
      and(
        filter.deptName ? ilike(departments.deptName, `%${filter.deptName}%`) : undefined,
        filter.status !== undefined ? eq(departments.status, filter.status) : undefined,
      ),
    )
    .orderBy(asc(departments.parentId), asc(departments.orderNum), asc(departments.deptId));
}

export async function getDept(ctx: AppContext, deptId: number) {
  const [row] = await ctx.db.select(deptColumns).from(departments).where(eq(departments.deptId, deptId));
  if (!row) throw notFound();
  return row;
}

/** Ids of a department and everything below it. */
export async function deptSubtree(ctx: AppContext, deptId: number): Promise<number[]> {
  const rows = await queryRows<{ dept_id: number }>(
    ctx.db,
    sql`
    with recursive tree as (
      select dept_id from departments where dept_id = ${deptId}
      union all
      select d.dept_id from departments d join tree t on d.parent_id = t.dept_id
    )
    select dept_id from tree`,
  );
  return rows.map((r) => Number(r.dept_id));
}

async function checkParent(ctx: AppContext, input: DeptInput, selfId?: number) {
  if (input.parentId === 0) return;
  await getDept(ctx, input.parentId).catch(() => {
    throw AppError.badRequest('dept.parent_missing', '上级机构不存在');
  });
  if (selfId !== undefined && (await deptSubtree(ctx, selfId)).includes(input.parentId)) {
    throw AppError.badRequest('dept.parent_cycle', '上级机构不能是自己或下级机构');
  }
}

async function checkNameFree(ctx: AppContext, input: DeptInput, selfId?: number) {
  const [clash] = await ctx.db
    .select({ deptId: departments.deptId })
    .from(departments)
    .where(
      and(
        eq(departments.parentId, input.parentId),
        eq(departments.deptName, input.deptName),
        selfId !== undefined ? ne(departments.deptId, selfId) : undefined,
      ),
    );
  if (clash) throw AppError.conflict('dept.name_taken', `机构名称“${input.deptName}”已存在`);
}

export async function createDept(ctx: AppContext, input: DeptInput) {
  await checkParent(ctx, input);
  await checkNameFree(ctx, input);
  const [row] = await ctx.db.insert(departments).values(input).returning(deptColumns);
  return row!;
}

export async function updateDept(ctx: AppContext, deptId: number, input: DeptInput) {
  await getDept(ctx, deptId);
  await checkParent(ctx, input, deptId);
  await checkNameFree(ctx, input, deptId);
  const [row] = await ctx.db
    .update(departments)
    .set({ ...input, updatedAt: ctx.clock() })
    .where(eq(departments.deptId, deptId))
    .returning(deptColumns);
  return row!;
}

export async function deleteDept(ctx: AppContext, deptId: number) {
  await ctx.db.transaction(async (tx) => {
    const [dept] = await tx.select().from(departments).where(eq(departments.deptId, deptId)).for('update');
    if (!dept) throw notFound();
    const [child] = await tx
      .select({ id: departments.deptId })
      .from(departments)
      .where(eq(departments.parentId, deptId))
      .limit(1);
    if (child) throw AppError.conflict('dept.has_children', '存在下级机构，不允许删除');
    const [member] = await tx
      .select({ id: users.userId })
      .from(users)
      .where(and(eq(users.deptId, deptId), isNull(users.deletedAt)))
      .limit(1);
    if (member) throw AppError.conflict('dept.has_users', '机构存在用户，不允许删除');
    await tx.delete(departments).where(eq(departments.deptId, deptId));
  });
}
