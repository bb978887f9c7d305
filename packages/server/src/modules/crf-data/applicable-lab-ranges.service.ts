import { and, eq, isNull } from 'drizzle-orm';
import type { RangeOverride } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { newRecordVersion } from '../amendment/draft-version.service.js';
import { definitionOf } from '../study/crf-definitions.js';
import { requireCrf } from './crf-data.service.js';
import { labRangesForSave } from './form-lab-ranges.js';
import { crfOfStudy, liveRecord } from './form-write.js';

/**
 * 参考范围 (issue 37) before a save: the site ranges the form's save would judge by now, per item, so the form page
 * shows ↑/↓ by the patient's site range (and recognition judges by it) before the record stores its own. The same
 * loader and chooser as the save (labRangesForSave); the record's stored values give the sample date, a new record
 * has today. The caller needs the form's view key; the study guard keeps the patient to the caller's sites.
 */
export async function applicableLabRanges(
  ctx: AppContext,
  access: StudyAccess,
  q: { subjectRecordId: number; crfId: number; crfDataRecordId?: number | undefined },
): Promise<Record<string, RangeOverride>> {
  requireCrf(access, q.crfId, 'view');
  const record = await liveRecord(ctx.db, q.subjectRecordId);
  if (record.studyId !== access.studyId) throw AppError.notFound('subject.not_found', '患者不存在');
  const crf = await crfOfStudy(ctx.db, record.studyId, q.crfId);
  const [patient] = await ctx.db
    .select({ siteId: subjects.deptId, gender: subjects.gender, birth: subjects.birth })
    .from(subjects)
    .where(eq(subjects.id, record.subjectId));
  if (!patient) throw AppError.notFound('subject.not_found', '患者不存在');
  let existing: typeof crfDataRecords.$inferSelect | undefined;
  if (q.crfDataRecordId) {
    [existing] = await ctx.db
      .select()
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.id, q.crfDataRecordId),
          eq(crfDataRecords.subjectRecordId, record.id),
          eq(crfDataRecords.crfId, q.crfId),
          isNull(crfDataRecords.deletedAt),
        ),
      );
    if (!existing) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  }
  const version = existing?.crfVersion ?? (await newRecordVersion(ctx.db, record.id, q.crfId)) ?? crf.currentVersion;
  const { overrides } = await labRangesForSave(ctx.db, {
    studyId: record.studyId,
    siteId: patient.siteId,
    gender: patient.gender,
    birth: patient.birth,
    definition: await definitionOf(ctx.db, q.crfId, version),
    values: (existing?.values ?? {}) as Record<string, unknown>,
    recordCreatedAt: existing?.createdAt ?? null,
    now: ctx.clock(),
    timeZone: access.timeZone,
  });
  return overrides;
}
