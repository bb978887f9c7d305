import { and, asc, count, desc, eq, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { buttonKey, hasPermission, type ArticleStatus } from '@ecrf/core';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.js';
import { contentImages, knowledgeArticles, knowledgeTypes } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { receiveFile, storageKeyOf } from '../files/file.service.js';
import { articleText, CONTENT_IMAGE_PATH, sanitizeArticleHtml } from './sanitize.js';

export const KNOWLEDGE_MANAGE = buttonKey('project.knowledge.manage');
/** Platform-wide articles and the types are the installation's: study administrators (study:manage) edit them. */
export const PLATFORM_CONTENT = 'study:manage';

export interface ArticleInput {
  platform: boolean;
  typeId: number;
  title: string;
  summary?: string | null;
  coverKey?: string | null;
  content: string;
  status: ArticleStatus;
}

type ArticleRow = typeof knowledgeArticles.$inferSelect;

const notFound = () => AppError.notFound('knowledge.not_found', '文章不存在');
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const imageUrl = (key: string | null) => (key ? `${CONTENT_IMAGE_PATH}${key}` : null);

function view(row: ArticleRow & { typeName?: string | null }, withContent: boolean) {
  return {
    id: row.id,
    studyId: row.studyId,
    platform: row.studyId === null,
    typeId: row.typeId,
    typeName: row.typeName ?? null,
    title: row.title,
    summary: row.summary,
    coverKey: row.coverKey,
    coverUrl: imageUrl(row.coverKey),
    status: row.status as ArticleStatus,
    publishTime: row.publishedAt?.toISOString() ?? null,
    createTime: row.createdAt.toISOString(),
    updateTime: row.updatedAt.toISOString(),
    ...(withContent ? { content: row.content } : {}),
  };
}

export async function listTypes(ctx: AppContext) {
  return ctx.db
    .select({ id: knowledgeTypes.id, name: knowledgeTypes.name, sort: knowledgeTypes.sort })
    .from(knowledgeTypes)
    .orderBy(asc(knowledgeTypes.sort), asc(knowledgeTypes.id));
}

async function uniqueTypeName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw AppError.conflict('knowledge.type_taken', '分类名称已存在');
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export async function createType(ctx: AppContext, input: { name: string; sort?: number }) {
  return uniqueTypeName(async () => {
    const [row] = await ctx.db
      .insert(knowledgeTypes)
      .values({ name: input.name, sort: input.sort ?? 0, createdAt: ctx.clock() })
      .returning();
    return row!;
  });
}

export async function updateType(ctx: AppContext, id: number, input: { name: string; sort?: number }) {
  return uniqueTypeName(async () => {
    const [row] = await ctx.db
      .update(knowledgeTypes)
      .set({ name: input.name, sort: input.sort ?? 0 })
      .where(eq(knowledgeTypes.id, id))
      .returning();
    if (!row) throw AppError.notFound('knowledge.type_not_found', '分类不存在');
    return row;
  });
}

export async function deleteType(ctx: AppContext, id: number) {
  await ctx.db.transaction(async (tx) => {
    const [used] = await tx
      .select({ id: knowledgeArticles.id })
      .from(knowledgeArticles)
      .where(eq(knowledgeArticles.typeId, id))
      .limit(1);
    if (used) throw AppError.conflict('knowledge.type_in_use', '该分类下有文章，不能删除');
    const gone = await tx.delete(knowledgeTypes).where(eq(knowledgeTypes.id, id)).returning();
    if (gone.length === 0) throw AppError.notFound('knowledge.type_not_found', '分类不存在');
  });
}

export interface ArticleFilter {
  typeId?: number;
  status?: ArticleStatus;
  keyword?: string;
}

/** The study's own articles and the platform-wide ones. */
const inStudyOrPlatform = (studyId: number | null) =>
  studyId === null
    ? isNull(knowledgeArticles.studyId)
    : or(eq(knowledgeArticles.studyId, studyId), isNull(knowledgeArticles.studyId))!;

async function listArticles(ctx: AppContext, where: SQL, page: PageRequest, publishedOrder: boolean) {
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(knowledgeArticles).where(where),
    ctx.db
      .select({ article: knowledgeArticles, typeName: knowledgeTypes.name })
      .from(knowledgeArticles)
      .leftJoin(knowledgeTypes, eq(knowledgeTypes.id, knowledgeArticles.typeId))
      .where(where)
      .orderBy(
        publishedOrder ? desc(knowledgeArticles.publishedAt) : desc(knowledgeArticles.updatedAt),
        desc(knowledgeArticles.id),
      )
      .$dynamic(),
    page,
  );
  return { list: rows.map((r) => view({ ...r.article, typeName: r.typeName }, false)), total };
}

function filterOf(filter: ArticleFilter): SQL[] {
  const parts: SQL[] = [];
  if (filter.typeId !== undefined) parts.push(eq(knowledgeArticles.typeId, filter.typeId));
  if (filter.status !== undefined) parts.push(eq(knowledgeArticles.status, filter.status));
  const keyword = filter.keyword?.trim();
  if (keyword) {
    const pattern = `%${escapeLike(keyword)}%`;
    parts.push(or(ilike(knowledgeArticles.title, pattern), ilike(knowledgeArticles.summary, pattern))!);
  }
  return parts;
}

/** Staff list (知识库): the study's articles and the platform's, drafts included, newest change first. */
export async function staffList(ctx: AppContext, access: StudyAccess, filter: ArticleFilter, page: PageRequest) {
  return listArticles(ctx, and(inStudyOrPlatform(access.studyId), ...filterOf(filter))!, page, false);
}

/** Patients' list: published articles only, of one study (and the platform's) or the platform's alone. */
export async function publicList(
  ctx: AppContext,
  studyId: number | null,
  filter: Omit<ArticleFilter, 'status'>,
  page: PageRequest,
) {
  return listArticles(
    ctx,
    and(inStudyOrPlatform(studyId), eq(knowledgeArticles.status, 'published'), ...filterOf(filter))!,
    page,
    true,
  );
}

async function findArticle(ctx: AppContext, id: number) {
  const [row] = await ctx.db
    .select({ article: knowledgeArticles, typeName: knowledgeTypes.name })
    .from(knowledgeArticles)
    .leftJoin(knowledgeTypes, eq(knowledgeTypes.id, knowledgeArticles.typeId))
    .where(eq(knowledgeArticles.id, id));
  return row ? { ...row.article, typeName: row.typeName } : undefined;
}

/** An article a member of the study may see: the study's own or a platform-wide one. */
export async function staffArticle(ctx: AppContext, access: StudyAccess, id: number) {
  const row = await findArticle(ctx, id);
  if (!row || (row.studyId !== null && row.studyId !== access.studyId)) throw notFound();
  return view(row, true);
}

export async function publicArticle(ctx: AppContext, id: number) {
  const row = await findArticle(ctx, id);
  if (!row || row.status !== 'published') throw notFound();
  return view(row, true);
}

/** Platform-wide articles are the installation's; a study's are its members' with 管理知识库. */
function mayEdit(user: CurrentUser, access: StudyAccess, platform: boolean) {
  if (platform) return hasPermission(user.permissions, PLATFORM_CONTENT);
  return hasStudyPermission(access, KNOWLEDGE_MANAGE);
}

async function checkRefs(ctx: AppContext, input: ArticleInput) {
  const [type] = await ctx.db
    .select({ id: knowledgeTypes.id })
    .from(knowledgeTypes)
    .where(eq(knowledgeTypes.id, input.typeId));
  if (!type) throw AppError.badRequest('knowledge.type_not_found', '分类不存在');
  if (input.coverKey) {
    const [cover] = await ctx.db
      .select({ key: contentImages.fileKey })
      .from(contentImages)
      .where(eq(contentImages.fileKey, input.coverKey));
    if (!cover) throw AppError.badRequest('knowledge.cover_not_found', '封面图片不存在');
  }
}

function values(ctx: AppContext, user: CurrentUser, input: ArticleInput, before?: ArticleRow) {
  const now = ctx.clock();
  const content = sanitizeArticleHtml(input.content);
  if (!articleText(content) && !/<img /.test(content)) {
    throw AppError.badRequest('knowledge.empty', '请输入文章内容');
  }
  return {
    typeId: input.typeId,
    title: input.title,
    summary: input.summary?.trim() ? input.summary.trim() : articleText(content).slice(0, 120) || null,
    coverKey: input.coverKey ?? null,
    content,
    status: input.status,
    // The first publication's time stays; taking an article back to draft clears it.
    publishedAt: input.status === 'published' ? (before?.publishedAt ?? now) : null,
    updatedBy: user.userId,
    updatedAt: now,
  };
}

export async function createArticle(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: ArticleInput) {
  if (!mayEdit(user, access, input.platform)) throw AppError.forbidden();
  await checkRefs(ctx, input);
  const now = ctx.clock();
  const [row] = await ctx.db
    .insert(knowledgeArticles)
    .values({
      ...values(ctx, user, input),
      studyId: input.platform ? null : access.studyId,
      createdBy: user.userId,
      createdAt: now,
    })
    .returning();
  return staffArticle(ctx, access, row!.id);
}

async function editable(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  const [row] = await ctx.db.select().from(knowledgeArticles).where(eq(knowledgeArticles.id, id));
  if (!row || (row.studyId !== null && row.studyId !== access.studyId)) throw notFound();
  if (!mayEdit(user, access, row.studyId === null)) throw AppError.forbidden();
  return row;
}

export async function updateArticle(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  input: ArticleInput,
) {
  const before = await editable(ctx, user, access, id);
  // Moving an article between the study and the platform needs the right over both.
  if (input.platform !== (before.studyId === null) && !mayEdit(user, access, input.platform)) {
    throw AppError.forbidden();
  }
  await checkRefs(ctx, input);
  await ctx.db
    .update(knowledgeArticles)
    .set({ ...values(ctx, user, input, before), studyId: input.platform ? null : access.studyId })
    .where(eq(knowledgeArticles.id, id));
  return staffArticle(ctx, access, id);
}

export async function deleteArticle(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  await editable(ctx, user, access, id);
  await ctx.db.delete(knowledgeArticles).where(eq(knowledgeArticles.id, id));
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Who may upload content pictures in a study: whoever edits any patient-facing content there. */
export function mayUploadContent(user: CurrentUser, access: StudyAccess) {
  return (
    hasPermission(user.permissions, PLATFORM_CONTENT) ||
    (['project.knowledge.manage', 'project.expert.manage', 'project.department.manage'] as const).some((code) =>
      hasStudyPermission(access, buttonKey(code)),
    )
  );
}

/** Stores a picture for patient-facing content; anything that is not a JPEG, PNG, GIF or WebP is refused. */
export async function storeContentImage(
  ctx: AppContext,
  user: CurrentUser,
  stream: Readable & { truncated?: boolean },
  fileName: string,
) {
  const stored = await receiveFile(ctx, stream, fileName);
  if (!IMAGE_TYPES.has(stored.contentType)) {
    await ctx.files.delete(storageKeyOf(stored.fileKey));
    throw AppError.badRequest('content.not_image', '只能上传图片');
  }
  await ctx.db.insert(contentImages).values({
    fileKey: stored.fileKey,
    fileName: fileName.slice(0, 255),
    contentType: stored.contentType,
    size: stored.size,
    sha256: stored.sha256,
    createdBy: user.userId,
    createdAt: ctx.clock(),
  });
  return { fileKey: stored.fileKey, url: `${CONTENT_IMAGE_PATH}${stored.fileKey}`, fileName };
}

export async function readContentImage(ctx: AppContext, fileKey: string) {
  const [row] = await ctx.db.select().from(contentImages).where(eq(contentImages.fileKey, fileKey));
  if (!row) throw AppError.notFound('file.not_found', '文件不存在');
  const stream = await ctx.files.get(storageKeyOf(fileKey));
  if (!stream) throw AppError.notFound('file.not_found', '文件不存在');
  return { row, stream };
}

/** Content-image keys that exist (experts' photos name one). */
export async function existingImages(ctx: AppContext, keys: string[]) {
  if (keys.length === 0) return new Set<string>();
  const rows = await ctx.db
    .select({ key: contentImages.fileKey })
    .from(contentImages)
    .where(inArray(contentImages.fileKey, keys));
  return new Set(rows.map((r) => r.key));
}
