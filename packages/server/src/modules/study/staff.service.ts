import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, notInArray, sql } from 'drizzle-orm';
import {
  allStudyPermissionKeys,
  CRF_ACTIONS,
  crfKey,
  fullRoleKeys,
  STUDY_BUTTONS,
  buttonKey,
  type AuditAction,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db, Tx } from '../../db/client.js';
import { crfs, departments, studyPersonnel, studyRoles, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { canonicalJson } from '../audit/audit-chain.js';
import { audit, auditRowChanges, type RowChange } from '../audit/audit.service.js';

export interface StudyRoleInput {
  roleName: string;
  remark?: string | null;
  permissions: string[];
}

const roleNotFound = () => AppError.notFound('study_role.not_found', '项目角色不存在');

async function crfIdsOf(db: AppContext['db'], studyId: number) {
  return (await db.select({ id: crfs.id }).from(crfs).where(eq(crfs.studyId, studyId))).map((c) => c.id);
}

/** The permission tree of a study role: the study's buttons, then every CRF with its six actions. */
export async function permissionTree(ctx: AppContext, studyId: number) {
  const forms = await ctx.db
    .select({ id: crfs.id, title: crfs.title })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
  return [
    {
      key: 'btn',
      title: '功能权限',
      children: STUDY_BUTTONS.map(([code, title]) => ({ key: buttonKey(code), title })),
    },
    {
      key: 'crf',
      title: 'CRF权限',
      children: forms.map((f) => ({
        key: `crf:${f.id}`,
        title: f.title,
        children: CRF_ACTIONS.map(([action, title]) => ({ key: crfKey(f.id, action), title })),
      })),
    },
  ];
}

async function checkPermissions(ctx: AppContext, studyId: number, permissions: string[]) {
  const allowed = new Set(allStudyPermissionKeys(await crfIdsOf(ctx.db, studyId)));
  const unknown = permissions.filter((p) => !allowed.has(p));
  if (unknown.length > 0) {
    throw AppError.badRequest('study_role.unknown_permission', `未知的权限：${unknown.slice(0, 3).join('、')}`);
  }
  return [...new Set(permissions)];
}

export async function listStudyRoles(ctx: AppContext, studyId: number) {
  const roles = await ctx.db
    .select()
    .from(studyRoles)
    .where(eq(studyRoles.studyId, studyId))
    .orderBy(asc(studyRoles.id));
  const counts = await ctx.db
    .select({ id: studyPersonnel.studyRoleId, n: count() })
    .from(studyPersonnel)
    .where(eq(studyPersonnel.studyId, studyId))
    .groupBy(studyPersonnel.studyRoleId);
  return roles.map((r) => ({
    id: r.id,
    studyId: r.studyId,
    roleName: r.roleName,
    remark: r.remark,
    permissions: r.permissions,
    memberCount: Number(counts.find((c) => c.id === r.id)?.n ?? 0),
    createTime: r.createdAt,
  }));
}

export async function getStudyRole(ctx: AppContext, id: number) {
  const [row] = await ctx.db.select().from(studyRoles).where(eq(studyRoles.id, id));
  if (!row) throw roleNotFound();
  return {
    id: row.id,
    studyId: row.studyId,
    roleName: row.roleName,
    remark: row.remark,
    permissions: row.permissions,
    createTime: row.createdAt,
  };
}

async function checkRoleName(tx: Tx | AppContext['db'], studyId: number, roleName: string, selfId?: number) {
  const [clash] = await tx
    .select({ id: studyRoles.id })
    .from(studyRoles)
    .where(
      and(
        eq(studyRoles.studyId, studyId),
        eq(studyRoles.roleName, roleName),
        selfId !== undefined ? ne(studyRoles.id, selfId) : undefined,
      ),
    );
  if (clash) throw AppError.conflict('study_role.name_taken', `项目角色“${roleName}”已存在`);
}

type StudyRoleRow = typeof studyRoles.$inferSelect;
const roleView = (r: StudyRoleRow) => ({ roleName: r.roleName, remark: r.remark, permissions: r.permissions });

/** Who may see and change what in a study is part of its record (GCP): role changes are audited on its chain. */
async function auditRole(
  tx: Tx,
  user: CurrentUser,
  at: Date,
  action: AuditAction,
  before: StudyRoleRow | null,
  after: StudyRoleRow | null,
) {
  const row = (after ?? before)!;
  await audit(tx, user, at, [
    {
      studyId: row.studyId,
      action,
      itemName: `studyRole:${row.id}`,
      oldValue: before && roleView(before),
      newValue: after && roleView(after),
    },
  ]);
}

export async function createStudyRole(ctx: AppContext, user: CurrentUser, studyId: number, input: StudyRoleInput) {
  const permissions = await checkPermissions(ctx, studyId, input.permissions);
  await checkRoleName(ctx.db, studyId, input.roleName);
  const row = await ctx.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(studyRoles)
      .values({ studyId, roleName: input.roleName, remark: input.remark ?? null, permissions })
      .returning();
    await auditRole(tx, user, ctx.clock(), 'study.role.create', null, created!);
    return created!;
  });
  return getStudyRole(ctx, row.id);
}

export async function updateStudyRole(ctx: AppContext, user: CurrentUser, id: number, input: StudyRoleInput) {
  const existing = await getStudyRole(ctx, id);
  const permissions = await checkPermissions(ctx, existing.studyId, input.permissions);
  await checkRoleName(ctx.db, existing.studyId, input.roleName, id);
  await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(studyRoles).where(eq(studyRoles.id, id)).for('update');
    if (!before) throw roleNotFound();
    const at = ctx.clock();
    const [after] = await tx
      .update(studyRoles)
      .set({ roleName: input.roleName, remark: input.remark ?? null, permissions, updatedAt: at })
      .where(eq(studyRoles.id, id))
      .returning();
    if (canonicalJson(roleView(before)) !== canonicalJson(roleView(after!))) {
      await auditRole(tx, user, at, 'study.role.update', before, after!);
    }
  });
  return getStudyRole(ctx, id);
}

export async function deleteStudyRole(ctx: AppContext, user: CurrentUser, id: number) {
  await ctx.db.transaction(async (tx) => {
    const [role] = await tx.select().from(studyRoles).where(eq(studyRoles.id, id));
    if (!role) throw roleNotFound();
    const [member] = await tx
      .select({ id: studyPersonnel.id })
      .from(studyPersonnel)
      .where(eq(studyPersonnel.studyRoleId, id))
      .limit(1);
    if (member) throw AppError.conflict('study_role.in_use', '该角色下仍有项目人员，不能删除');
    await tx.delete(studyRoles).where(eq(studyRoles.id, id));
    await auditRole(tx, user, ctx.clock(), 'study.role.delete', role, null);
  });
}

/**
 * New CRFs join the permission tree: roles that held every key so far (the 项目管理员 role) get their keys too.
 * One statement whatever the number of roles and CRFs: the containment test and the append run in the
 * database, so a 200-form upload costs what a one-form upload costs.
 */
export async function grantNewCrfsToFullRoles(
  tx: Tx,
  studyId: number,
  newCrfIds: readonly number[],
  previousCrfIds: readonly number[],
) {
  if (newCrfIds.length === 0) return;
  const full = JSON.stringify(fullRoleKeys(previousCrfIds));
  const added = JSON.stringify(newCrfIds.flatMap((id) => CRF_ACTIONS.map(([action]) => crfKey(id, action))));
  await tx.execute(sql`
    update study_roles set permissions = permissions || coalesce(
      (select jsonb_agg(key) from jsonb_array_elements(${added}::jsonb) key where not permissions @> jsonb_build_array(key)),
      '[]'::jsonb)
    where study_id = ${studyId} and permissions @> ${full}::jsonb`);
}

const memberColumns = {
  id: studyPersonnel.id,
  studyId: studyPersonnel.studyId,
  userId: users.userId,
  userName: users.userName,
  name: users.name,
  deptId: studyPersonnel.deptId,
  deptName: departments.deptName,
  siteIds: studyPersonnel.siteIds,
  studyRoleId: studyPersonnel.studyRoleId,
  roleName: studyRoles.roleName,
  createTime: studyPersonnel.createdAt,
};

export async function listPersonnel(ctx: AppContext, studyId: number, filter: { name?: string }, page: PageRequest) {
  const where = and(
    eq(studyPersonnel.studyId, studyId),
    filter.name ? ilike(users.name, `%${filter.name}%`) : undefined,
  );
  const { list, total } = await pagedQuery(
    ctx.db
      .select({ total: count() })
      .from(studyPersonnel)
      .innerJoin(users, eq(users.userId, studyPersonnel.userId))
      .where(where),
    ctx.db
      .select(memberColumns)
      .from(studyPersonnel)
      .innerJoin(users, eq(users.userId, studyPersonnel.userId))
      .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
      .leftJoin(departments, eq(departments.deptId, studyPersonnel.deptId))
      .where(where)
      .orderBy(desc(studyPersonnel.createdAt), desc(studyPersonnel.id))
      .$dynamic(),
    page,
  );
  const names = await departmentNames(
    ctx.db,
    list.flatMap((m) => memberSites(m)),
  );
  return {
    list: list.map((m) => {
      const siteIds = memberSites(m);
      return { ...m, siteIds, siteNames: siteIds.map((id) => names.get(id) ?? String(id)) };
    }),
    total,
  };
}

/** A member's sites (docs/multi-centre.md): the list when set, else the one department. */
export const memberSites = (m: { deptId: number | null; siteIds: number[] | null }): number[] =>
  m.siteIds?.length ? m.siteIds : m.deptId !== null ? [m.deptId] : [];

export async function departmentNames(db: Db | Tx, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ deptId: departments.deptId, deptName: departments.deptName })
    .from(departments)
    .where(inArray(departments.deptId, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.deptId, r.deptName]));
}

/** The sites a member is given: every one must exist; the first is their department. */
async function sitesOf(tx: Tx, input: { deptId?: number | null; siteIds?: number[] }) {
  if (input.siteIds === undefined) return undefined;
  const ids = [...new Set(input.siteIds)];
  if ((await departmentNames(tx, ids)).size !== ids.length) {
    throw AppError.badRequest('study_personnel.site_missing', '中心不存在');
  }
  return { deptId: ids[0] ?? input.deptId ?? null, siteIds: ids.length > 1 ? ids : null };
}

export async function uncommittedUsers(ctx: AppContext, studyId: number, filter: { name?: string }) {
  const members = (
    await ctx.db
      .select({ userId: studyPersonnel.userId })
      .from(studyPersonnel)
      .where(eq(studyPersonnel.studyId, studyId))
  ).map((m) => m.userId);
  return ctx.db
    .select({
      userId: users.userId,
      userName: users.userName,
      name: users.name,
      deptId: users.deptId,
      deptName: departments.deptName,
    })
    .from(users)
    .leftJoin(departments, eq(departments.deptId, users.deptId))
    .where(
      and(
        isNull(users.deletedAt),
        eq(users.status, 0),
        members.length > 0 ? notInArray(users.userId, members) : undefined,
        filter.name ? ilike(users.name, `%${filter.name}%`) : undefined,
      ),
    )
    .orderBy(asc(users.userId))
    .limit(500);
}

async function checkRoleOfStudy(tx: Tx, studyId: number, studyRoleId: number) {
  const [role] = await tx
    .select({ id: studyRoles.id })
    .from(studyRoles)
    .where(and(eq(studyRoles.id, studyRoleId), eq(studyRoles.studyId, studyId)));
  if (!role) throw AppError.badRequest('study_personnel.role_missing', '项目角色不存在');
}

type MemberRow = typeof studyPersonnel.$inferSelect;
const memberView = (m: MemberRow) => ({
  userId: m.userId,
  studyRoleId: m.studyRoleId,
  deptId: m.deptId,
  ...(m.siteIds?.length ? { siteIds: m.siteIds } : {}),
});

function auditMembers(tx: Tx, user: CurrentUser, at: Date, action: AuditAction, changes: Array<RowChange<MemberRow>>) {
  return auditRowChanges(tx, user, at, action, changes, {
    key: (row) => ({ itemName: `user:${row.userId}` }),
    view: memberView,
  });
}

export async function addPersonnel(
  ctx: AppContext,
  user: CurrentUser,
  input: { studyId: number; userIds: number[]; studyRoleId: number; deptId?: number | null; siteIds?: number[] },
) {
  await ctx.db.transaction(async (tx) => {
    await checkRoleOfStudy(tx, input.studyId, input.studyRoleId);
    const sites = await sitesOf(tx, input);
    const found = await tx
      .select({ userId: users.userId, deptId: users.deptId })
      .from(users)
      .where(and(inArray(users.userId, input.userIds), isNull(users.deletedAt)));
    if (found.length !== new Set(input.userIds).size) {
      throw AppError.badRequest('study_personnel.user_missing', '用户不存在');
    }
    const already = await tx
      .select({ userId: studyPersonnel.userId })
      .from(studyPersonnel)
      .where(and(eq(studyPersonnel.studyId, input.studyId), inArray(studyPersonnel.userId, input.userIds)));
    if (already.length > 0) throw AppError.conflict('study_personnel.already', '所选用户已是项目人员');
    const added = await tx
      .insert(studyPersonnel)
      .values(
        found.map((u) => ({
          studyId: input.studyId,
          userId: u.userId,
          studyRoleId: input.studyRoleId,
          deptId: sites?.deptId ?? input.deptId ?? u.deptId,
          siteIds: sites?.siteIds ?? null,
        })),
      )
      .returning();
    await auditMembers(
      tx,
      user,
      ctx.clock(),
      'study.personnel.add',
      added.map((after) => ({ before: null, after })),
    );
  });
}

/** A study must keep someone who can still manage it: a member holding every study permission. */
async function ensureFullMemberRemains(tx: Tx, studyId: number) {
  const crfIds = (await tx.select({ id: crfs.id }).from(crfs).where(eq(crfs.studyId, studyId))).map((c) => c.id);
  const full = fullRoleKeys(crfIds);
  const held = await tx
    .select({ permissions: studyRoles.permissions })
    .from(studyPersonnel)
    .innerJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(eq(studyPersonnel.studyId, studyId));
  if (!held.some((h) => full.every((key) => h.permissions.includes(key)))) {
    throw AppError.conflict('study_personnel.last_manager', '项目至少需要保留一名拥有全部权限的人员');
  }
}

export async function updatePersonnel(
  ctx: AppContext,
  user: CurrentUser,
  input: { id: number; studyRoleId: number; deptId?: number | null; siteIds?: number[] },
) {
  await ctx.db.transaction(async (tx) => {
    const [member] = await tx.select().from(studyPersonnel).where(eq(studyPersonnel.id, input.id));
    if (!member) throw AppError.notFound('study_personnel.not_found', '项目人员不存在');
    await checkRoleOfStudy(tx, member.studyId, input.studyRoleId);
    const sites = await sitesOf(tx, input);
    const at = ctx.clock();
    const [after] = await tx
      .update(studyPersonnel)
      .set({
        studyRoleId: input.studyRoleId,
        ...(input.deptId !== undefined && { deptId: input.deptId }),
        ...(sites && { deptId: sites.deptId, siteIds: sites.siteIds }),
        updatedAt: at,
      })
      .where(eq(studyPersonnel.id, input.id))
      .returning();
    await ensureFullMemberRemains(tx, member.studyId);
    if (canonicalJson(memberView(member)) !== canonicalJson(memberView(after!))) {
      await auditMembers(tx, user, at, 'study.personnel.update', [{ before: member, after: after! }]);
    }
  });
}

/** Removing staff never touches what they entered: data rows keep their user ids. */
export async function removePersonnel(ctx: AppContext, user: CurrentUser, id: number) {
  await ctx.db.transaction(async (tx) => {
    const [member] = await tx.select().from(studyPersonnel).where(eq(studyPersonnel.id, id));
    if (!member) throw AppError.notFound('study_personnel.not_found', '项目人员不存在');
    await tx.delete(studyPersonnel).where(eq(studyPersonnel.id, id));
    await ensureFullMemberRemains(tx, member.studyId);
    await auditMembers(tx, user, ctx.clock(), 'study.personnel.remove', [{ before: member, after: null }]);
  });
}
