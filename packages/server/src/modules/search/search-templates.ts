// Saved search templates.
import { and, desc, eq, or } from 'drizzle-orm';
import type { SearchTemplateBody } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { searchTemplates, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { compile } from './search-sql.js';

/** GET /api/business/search/all_templates: the caller's own and those shared in the study, newest first. */
export async function listTemplates(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  const rows = await ctx.db
    .select({ template: searchTemplates, ownerName: users.name })
    .from(searchTemplates)
    .leftJoin(users, eq(users.userId, searchTemplates.ownerId))
    .where(
      and(
        eq(searchTemplates.studyId, access.studyId),
        or(eq(searchTemplates.ownerId, user.userId), eq(searchTemplates.shared, true)),
      ),
    )
    .orderBy(desc(searchTemplates.id));
  return rows.map(({ template: t, ownerName }) => ({
    id: t.id,
    name: t.name,
    shared: t.shared,
    conditions: t.conditions,
    columns: t.columns,
    ownerId: t.ownerId,
    ownerName: ownerName ?? '',
    mine: t.ownerId === user.userId,
    canDelete: canDeleteTemplate(user, access, t.ownerId),
    createTime: t.createdAt,
  }));
}

/** The owner, or a study manager (study:manage), may delete a template. */
function canDeleteTemplate(user: CurrentUser, access: StudyAccess, ownerId: number) {
  return ownerId === user.userId || access.all;
}

/**
 * POST /api/business/search/template. The conditions and columns are checked against the caller's dictionary
 * as a search would be, so a template never names a form or an identifier its author could not search.
 */
export async function createTemplate(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  body: SearchTemplateBody,
) {
  await compile(ctx, access, body.conditions, body.columns);
  const [row] = await ctx.db
    .insert(searchTemplates)
    .values({
      studyId: access.studyId,
      name: body.name,
      shared: body.shared,
      conditions: body.conditions,
      columns: body.columns,
      ownerId: user.userId,
      createdAt: ctx.clock(),
    })
    .returning({ id: searchTemplates.id });
  return { id: row!.id };
}

/** DELETE /api/business/search/template/{id}: the owner or a study manager. */
export async function deleteTemplate(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  const [row] = await ctx.db
    .select()
    .from(searchTemplates)
    .where(and(eq(searchTemplates.id, id), eq(searchTemplates.studyId, access.studyId)));
  if (!row || (!row.shared && row.ownerId !== user.userId && !access.all)) {
    throw AppError.notFound('search.template_not_found', '检索模板不存在');
  }
  if (!canDeleteTemplate(user, access, row.ownerId)) {
    throw AppError.forbidden('search.template_forbidden', '只有模板的创建人或项目管理员可以删除该模板');
  }
  await ctx.db
    .delete(searchTemplates)
    .where(and(eq(searchTemplates.id, id), eq(searchTemplates.studyId, access.studyId)));
}
