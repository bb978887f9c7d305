import { and, asc, eq } from 'drizzle-orm';
import { buttonKey } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { hospitals } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { StudyAccess } from '../../shared/study-access.js';

export const DEPARTMENT_MANAGE = buttonKey('project.department.manage');

export interface HospitalInput {
  name: string;
  introduction?: string | null;
  address?: string | null;
  contact?: string | null;
  phone?: string | null;
  sort?: number;
}

type HospitalRow = typeof hospitals.$inferSelect;

function view(row: HospitalRow) {
  return {
    id: row.id,
    studyId: row.studyId,
    name: row.name,
    introduction: row.introduction,
    address: row.address,
    contact: row.contact,
    phone: row.phone,
    sort: row.sort,
    updateTime: row.updatedAt.toISOString(),
  };
}

const fields = (input: HospitalInput) => ({
  name: input.name,
  introduction: input.introduction ?? null,
  address: input.address ?? null,
  contact: input.contact ?? null,
  phone: input.phone ?? null,
  sort: input.sort ?? 0,
});

/** A second site of the same name in one study is refused by the unique key hospitals_study_name. */
async function uniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    if (e?.code === '23505' || e?.cause?.code === '23505') {
      throw AppError.conflict('hospital.name_taken', '该医院已存在');
    }
    throw err;
  }
}

/** The study's sites (项目介绍), by sort then id. */
export async function listHospitals(ctx: AppContext, studyId: number) {
  const rows = await ctx.db
    .select()
    .from(hospitals)
    .where(eq(hospitals.studyId, studyId))
    .orderBy(asc(hospitals.sort), asc(hospitals.id));
  return rows.map(view);
}

export async function createHospital(ctx: AppContext, access: StudyAccess, input: HospitalInput) {
  return uniqueName(async () => {
    const now = ctx.clock();
    const [row] = await ctx.db
      .insert(hospitals)
      .values({ ...fields(input), studyId: access.studyId, createdAt: now, updatedAt: now })
      .returning();
    return view(row!);
  });
}

export async function updateHospital(ctx: AppContext, access: StudyAccess, id: number, input: HospitalInput) {
  return uniqueName(async () => {
    const [row] = await ctx.db
      .update(hospitals)
      .set({ ...fields(input), updatedAt: ctx.clock() })
      .where(and(eq(hospitals.studyId, access.studyId), eq(hospitals.id, id)))
      .returning();
    if (!row) throw AppError.notFound('hospital.not_found', '医院不存在');
    return view(row);
  });
}
