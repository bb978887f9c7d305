import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { recognitions } from '../../db/schema/index.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';

/**
 * Whether a file is the source image of a recognition linked to a form the caller may view: a monitor opens the
 * image a value was read from (SDV), like a file the record holds: of a patient at one of the caller's sites.
 */
export async function isViewableSource(ctx: AppContext, access: StudyAccess, fileKey: string): Promise<boolean> {
  const viewable = viewableCrfIds(access);
  if (viewable !== null && viewable.length === 0) return false;
  const [hit] = await ctx.db
    .select({ id: recognitions.id })
    .from(recognitions)
    .where(
      and(
        eq(recognitions.studyId, access.studyId),
        eq(recognitions.fileKey, fileKey),
        eq(recognitions.state, 'done'),
        sql`${recognitions.subjectRecordId} is not null`,
        recordInCallerSites(access, recognitions.subjectRecordId),
        ...(viewable !== null ? [inArray(recognitions.crfId, viewable)] : []),
      ),
    )
    .limit(1);
  return Boolean(hit);
}
