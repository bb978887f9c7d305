import { and, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { NoticeInput, NoticeTarget, SysNoticePush } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { noticeReads, notices, roles, studies, studyPersonnel, userRoles, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';

/**
 * 通知公告 (SHELL-34 and issue 19): administrators write notices for all users, the users of one system role, or the
 * staff of one study; each user reads the notices meant for them, with their own read marks, and a published notice
 * is pushed at once to the signed-in readers (personsignalhub `sys.notice`, ids only).
 */

const PUBLISHED = 0;

const notFound = () => AppError.notFound('notice.not_found', '公告不存在');

type NoticeRow = typeof notices.$inferSelect;

/** The notices a user is a reader of: for everyone, for one of their roles, or for a study they are staff of. */
function readerOf(userId: number): SQL {
  return or(
    eq(notices.targetType, 'all'),
    and(
      eq(notices.targetType, 'role'),
      sql`${notices.targetRoleId} in (select role_id from user_roles where user_id = ${userId})`,
    ),
    and(
      eq(notices.targetType, 'study'),
      sql`${notices.targetStudyId} in (select study_id from study_personnel where user_id = ${userId})`,
    ),
  )!;
}

/** GET /api/system/notice/list: the caller's notices, newest first, each with the caller's read mark. */
export async function listMyNotices(ctx: AppContext, user: CurrentUser, page: PageRequest) {
  const where = and(eq(notices.status, PUBLISHED), readerOf(user.userId));
  return pagedQuery(
    ctx.db.select({ total: count() }).from(notices).where(where),
    ctx.db
      .select({
        noticeId: notices.noticeId,
        title: notices.title,
        content: notices.content,
        createTime: notices.createdAt,
        read: sql<boolean>`${noticeReads.userId} is not null`,
      })
      .from(notices)
      .leftJoin(noticeReads, and(eq(noticeReads.noticeId, notices.noticeId), eq(noticeReads.userId, user.userId)))
      .where(where)
      .orderBy(desc(notices.createdAt), desc(notices.noticeId))
      .$dynamic(),
    page,
  );
}

/** How many of the caller's notices they have not read (the bell's dot). */
export async function unreadCount(ctx: AppContext, user: CurrentUser): Promise<number> {
  const [{ n }] = (await ctx.db
    .select({ n: count() })
    .from(notices)
    .leftJoin(noticeReads, and(eq(noticeReads.noticeId, notices.noticeId), eq(noticeReads.userId, user.userId)))
    .where(and(eq(notices.status, PUBLISHED), readerOf(user.userId), isNull(noticeReads.userId)))) as [{ n: number }];
  return Number(n);
}

/** Marks notices read for the caller (the ones given, or all of theirs); a notice not meant for them is skipped. */
export async function markRead(ctx: AppContext, user: CurrentUser, noticeIds: number[] | undefined) {
  const mine = await ctx.db
    .select({ noticeId: notices.noticeId })
    .from(notices)
    .where(
      and(
        eq(notices.status, PUBLISHED),
        readerOf(user.userId),
        noticeIds ? inArray(notices.noticeId, noticeIds.length ? noticeIds : [0]) : undefined,
      ),
    );
  if (mine.length === 0) return { unread: await unreadCount(ctx, user) };
  await ctx.db
    .insert(noticeReads)
    .values(mine.map((m) => ({ noticeId: m.noticeId, userId: user.userId, readAt: ctx.clock() })))
    .onConflictDoNothing();
  return { unread: await unreadCount(ctx, user) };
}

function adminView(row: NoticeRow & { targetName: string | null; readCount: number }) {
  return {
    noticeId: row.noticeId,
    title: row.title,
    content: row.content,
    targetType: row.targetType as NoticeTarget,
    targetRoleId: row.targetRoleId,
    targetStudyId: row.targetStudyId,
    targetName: row.targetName,
    readCount: Number(row.readCount),
    createTime: row.createdAt.toISOString(),
    updateTime: row.updatedAt.toISOString(),
  };
}

/** The administrators' list (通知公告管理): every published notice with whom it is for and how many read it. */
export async function listAllNotices(ctx: AppContext, filter: { title?: string | undefined }, page: PageRequest) {
  const where = and(
    eq(notices.status, PUBLISHED),
    filter.title ? sql`${notices.title} ilike ${`%${filter.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : undefined,
  );
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(notices).where(where),
    ctx.db
      .select({
        notice: notices,
        roleName: roles.roleName,
        studyName: studies.studyName,
        readCount: sql<number>`(select count(*) from notice_reads r where r.notice_id = ${notices.noticeId})`,
      })
      .from(notices)
      .leftJoin(roles, eq(roles.roleId, notices.targetRoleId))
      .leftJoin(studies, eq(studies.studyId, notices.targetStudyId))
      .where(where)
      .orderBy(desc(notices.createdAt), desc(notices.noticeId))
      .$dynamic(),
    page,
  );
  return {
    list: rows.map((r) =>
      adminView({
        ...r.notice,
        targetName: r.notice.targetType === 'role' ? r.roleName : r.notice.targetType === 'study' ? r.studyName : null,
        readCount: r.readCount,
      }),
    ),
    total,
  };
}

/** A notice's target as stored: the other target's id is cleared, and the role or study must exist. */
async function targetOf(ctx: AppContext, input: NoticeInput) {
  if (input.targetType === 'role') {
    const [role] = await ctx.db
      .select({ roleId: roles.roleId })
      .from(roles)
      .where(eq(roles.roleId, input.targetRoleId!));
    if (!role) throw AppError.badRequest('notice.target_missing', '角色不存在');
    return { targetType: 'role', targetRoleId: role.roleId, targetStudyId: null };
  }
  if (input.targetType === 'study') {
    const [study] = await ctx.db
      .select({ studyId: studies.studyId })
      .from(studies)
      .where(and(eq(studies.studyId, input.targetStudyId!), isNull(studies.deletedAt)));
    if (!study) throw AppError.badRequest('notice.target_missing', '项目不存在');
    return { targetType: 'study', targetRoleId: null, targetStudyId: study.studyId };
  }
  return { targetType: 'all', targetRoleId: null, targetStudyId: null };
}

/** The enabled users a notice is for. */
async function readersOf(
  ctx: AppContext,
  target: { targetType: string; targetRoleId: number | null; targetStudyId: number | null },
) {
  const enabled = and(isNull(users.deletedAt), eq(users.status, 0));
  if (target.targetType === 'role') {
    const rows = await ctx.db
      .select({ userId: users.userId })
      .from(userRoles)
      .innerJoin(users, eq(users.userId, userRoles.userId))
      .where(and(eq(userRoles.roleId, target.targetRoleId ?? 0), enabled));
    return rows.map((r) => r.userId);
  }
  if (target.targetType === 'study') {
    const rows = await ctx.db
      .select({ userId: users.userId })
      .from(studyPersonnel)
      .innerJoin(users, eq(users.userId, studyPersonnel.userId))
      .where(and(eq(studyPersonnel.studyId, target.targetStudyId ?? 0), enabled));
    return rows.map((r) => r.userId);
  }
  return (await ctx.db.select({ userId: users.userId }).from(users).where(enabled)).map((r) => r.userId);
}

/** Pushes after commit; the user rooms of users without an open connection cost nothing. */
async function push(ctx: AppContext, targets: Parameters<typeof readersOf>[1][], payload: SysNoticePush) {
  const userIds = new Set<number>();
  for (const target of targets) for (const id of await readersOf(ctx, target)) userIds.add(id);
  for (const userId of userIds) ctx.realtime.toUser(userId, 'sys.notice', payload);
}

export async function createNotice(ctx: AppContext, user: CurrentUser, input: NoticeInput) {
  const target = await targetOf(ctx, input);
  const at = ctx.clock();
  const [row] = await ctx.db
    .insert(notices)
    .values({
      title: input.title,
      content: input.content,
      ...target,
      createdBy: user.userId,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  await push(ctx, [target], { noticeId: row!.noticeId, change: 'published' });
  return { noticeId: row!.noticeId };
}

async function liveRow(ctx: AppContext, noticeId: number) {
  const [row] = await ctx.db
    .select()
    .from(notices)
    .where(and(eq(notices.noticeId, noticeId), eq(notices.status, PUBLISHED)));
  if (!row) throw notFound();
  return row;
}

export async function updateNotice(ctx: AppContext, noticeId: number, input: NoticeInput) {
  const before = await liveRow(ctx, noticeId);
  const target = await targetOf(ctx, input);
  await ctx.db
    .update(notices)
    .set({ title: input.title, content: input.content, ...target, updatedAt: ctx.clock() })
    .where(eq(notices.noticeId, noticeId));
  // The readers before and after the change: one may have lost it, another gained it.
  await push(ctx, [before, target], { noticeId, change: 'changed' });
  return { noticeId };
}

/** Removed notices stay as rows (status 1): who wrote what stays answerable. */
export async function removeNotice(ctx: AppContext, noticeId: number) {
  const before = await liveRow(ctx, noticeId);
  await ctx.db.update(notices).set({ status: 1, updatedAt: ctx.clock() }).where(eq(notices.noticeId, noticeId));
  await push(ctx, [before], { noticeId, change: 'changed' });
}
