import { and, eq, isNull } from 'drizzle-orm';
import { DEFAULT_TIME_ZONE, hasPermission, spineBandSetOf } from '@ecrf/core';
import type { AppContext } from '../app-context.js';
import { studies, studyPersonnel, studyRoles } from '../db/schema/index.js';
import { siteScopedAccess } from './patient-site.js';
import { STUDY_MANAGE, type StudyAccess } from './study-access.js';

/**
 * What a user may do in a study: their study role's keys and sites, or everything for a `study:manage` holder;
 * null when they are neither staff nor a holder (or the study is gone). The study guard asks it for every
 * study-scoped request; jobs, realtime and API tokens ask it for a user outside any request.
 */
export async function studyAccessOf(
  ctx: AppContext,
  userId: number,
  permissions: string[],
  studyId: number,
): Promise<StudyAccess | null> {
  const [row] = await ctx.db
    .select({
      timeZone: studies.timeZone,
      spineBandSet: studies.spineBandSet,
      studyRoleId: studyPersonnel.studyRoleId,
      rolePermissions: studyRoles.permissions,
      deptId: studyPersonnel.deptId,
      siteIds: studyPersonnel.siteIds,
    })
    .from(studies)
    .leftJoin(studyPersonnel, and(eq(studyPersonnel.studyId, studies.studyId), eq(studyPersonnel.userId, userId)))
    .leftJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(and(eq(studies.studyId, studyId), isNull(studies.deletedAt)));
  const member = row?.studyRoleId != null;
  const all = hasPermission(permissions, STUDY_MANAGE);
  if (!member && !all) return null;
  return siteScopedAccess(ctx, {
    studyId,
    member,
    studyRoleId: row?.studyRoleId ?? null,
    permissions: row?.rolePermissions ?? [],
    all,
    timeZone: row?.timeZone ?? DEFAULT_TIME_ZONE,
    spineBandSet: spineBandSetOf(row?.spineBandSet),
    deptId: row?.deptId ?? null,
    siteIds: row?.siteIds ?? null,
  });
}
