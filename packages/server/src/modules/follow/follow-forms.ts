import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { followRecordCrfs, followRecords } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';

/**
 * Ties a saved form record to the follow-up visit it was filled for, inside the save's own transaction
 * (crf-data.service.ts), so a form saved for a visit can never be left unattached. The visit must be the
 * same patient's and name this form; a visit form already tied to another record refuses the save.
 */
export async function linkFollowForm(
  tx: Db,
  link: { studyId: number; subjectRecordId: number; crfId: number; followRecordCrfId: number; crfDataRecordId: number },
) {
  const [row] = await tx
    .select({ crf: followRecordCrfs, subjectRecordId: followRecords.subjectRecordId, mark: followRecords.mark })
    .from(followRecordCrfs)
    .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
    .where(and(eq(followRecordCrfs.id, link.followRecordCrfId), eq(followRecordCrfs.studyId, link.studyId)))
    .for('update');
  if (!row || row.subjectRecordId !== link.subjectRecordId || row.crf.crfId !== link.crfId) {
    throw AppError.notFound('follow.crf_not_found', '随访表单不存在');
  }
  if (row.mark === 'deleted') throw AppError.badRequest('follow.deleted', '该随访已删除');
  if (row.crf.crfDataRecordId === link.crfDataRecordId) return;
  const [taken] = await tx
    .select({ id: followRecordCrfs.id })
    .from(followRecordCrfs)
    .where(and(eq(followRecordCrfs.studyId, link.studyId), eq(followRecordCrfs.crfDataRecordId, link.crfDataRecordId)));
  if (taken) throw new AppError(409, 'follow.crf_linked', '该表单记录已属于另一次随访');
  if (row.crf.crfDataRecordId !== null) {
    throw new AppError(409, 'follow.crf_linked', '该随访表单已关联其他记录');
  }
  await tx
    .update(followRecordCrfs)
    .set({ crfDataRecordId: link.crfDataRecordId, updatedAt: new Date() })
    .where(eq(followRecordCrfs.id, row.crf.id));
}
