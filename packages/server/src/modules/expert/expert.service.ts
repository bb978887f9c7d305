import { and, asc, count, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import { buttonKey } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { experts } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { existingImages } from '../knowledge/knowledge.service.js';
import { CONTENT_IMAGE_PATH } from '../knowledge/sanitize.js';

export const EXPERT_MANAGE = buttonKey('project.expert.manage');

export interface ExpertInput {
  name: string;
  photoKey?: string | null;
  title?: string | null;
  hospital?: string | null;
  department?: string | null;
  specialty?: string | null;
  introduction?: string | null;
  sort?: number;
}

type ExpertRow = typeof experts.$inferSelect;

const notFound = () => AppError.notFound('expert.not_found', '医生不存在');
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function view(row: ExpertRow) {
  return {
    id: row.id,
    studyId: row.studyId,
    name: row.name,
    photoKey: row.photoKey,
    photoUrl: row.photoKey ? `${CONTENT_IMAGE_PATH}${row.photoKey}` : null,
    title: row.title,
    hospital: row.hospital,
    department: row.department,
    specialty: row.specialty,
    introduction: row.introduction,
    sort: row.sort,
    createTime: row.createdAt.toISOString(),
    updateTime: row.updatedAt.toISOString(),
  };
}

/** The study's doctors (paged, platform §3), by sort then name; keyword over name, hospital, department, specialty. */
export async function listExperts(ctx: AppContext, studyId: number, keyword: string | undefined, page: PageRequest) {
  const parts: SQL[] = [eq(experts.studyId, studyId)];
  const k = keyword?.trim();
  if (k) {
    const p = `%${escapeLike(k)}%`;
    parts.push(
      or(
        ilike(experts.name, p),
        ilike(experts.hospital, p),
        ilike(experts.department, p),
        ilike(experts.specialty, p),
      )!,
    );
  }
  const where = and(...parts)!;
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(experts).where(where),
    ctx.db.select().from(experts).where(where).orderBy(asc(experts.sort), desc(experts.id)).$dynamic(),
    page,
  );
  return { list: rows.map(view), total };
}

export async function getExpert(ctx: AppContext, access: StudyAccess, id: number) {
  const [row] = await ctx.db
    .select()
    .from(experts)
    .where(and(eq(experts.studyId, access.studyId), eq(experts.id, id)));
  if (!row) throw notFound();
  return view(row);
}

async function checkPhoto(ctx: AppContext, input: ExpertInput) {
  if (input.photoKey && !(await existingImages(ctx, [input.photoKey])).has(input.photoKey)) {
    throw AppError.badRequest('expert.photo_not_found', '照片不存在');
  }
}

const fields = (input: ExpertInput) => ({
  name: input.name,
  photoKey: input.photoKey ?? null,
  title: input.title ?? null,
  hospital: input.hospital ?? null,
  department: input.department ?? null,
  specialty: input.specialty ?? null,
  introduction: input.introduction ?? null,
  sort: input.sort ?? 0,
});

export async function createExpert(ctx: AppContext, access: StudyAccess, input: ExpertInput) {
  await checkPhoto(ctx, input);
  const now = ctx.clock();
  const [row] = await ctx.db
    .insert(experts)
    .values({ ...fields(input), studyId: access.studyId, createdAt: now, updatedAt: now })
    .returning();
  return view(row!);
}

export async function updateExpert(ctx: AppContext, access: StudyAccess, id: number, input: ExpertInput) {
  await checkPhoto(ctx, input);
  const [row] = await ctx.db
    .update(experts)
    .set({ ...fields(input), updatedAt: ctx.clock() })
    .where(and(eq(experts.studyId, access.studyId), eq(experts.id, id)))
    .returning();
  if (!row) throw notFound();
  return view(row);
}

export async function deleteExpert(ctx: AppContext, access: StudyAccess, id: number) {
  const gone = await ctx.db
    .delete(experts)
    .where(and(eq(experts.studyId, access.studyId), eq(experts.id, id)))
    .returning({ id: experts.id });
  if (gone.length === 0) throw notFound();
}
