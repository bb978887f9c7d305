/** Acts on a patient's casebook: moving it to another site, its state, deleting and restoring it, signing it. */
import { and, eq, isNull } from 'drizzle-orm';
import { MSG, SITE_MOVE_MSG } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { signatures, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { assertWritable } from '../locks/lock-gate.js';
import { audit } from '../audit/audit.service.js';
import { reauthenticate } from '../auth/password-attempts.service.js';
import { departmentExists, isCodeTaken } from './subject-edit.service.js';
import { getSubject, listSignatures, notFound } from './subject.service.js';

/**
 * 转移中心: moves a patient to another site (department), with the reason, in one transaction and one audit row
 * (subject.site, old and new department ids). A manager's act (the route asks for 查看全部中心数据 and the edit
 * permission): the patient then belongs to the new site's members and leaves the old site's.
 */
export async function moveSubjectSite(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
  deptId: number,
  reason: string,
) {
  const why = reason.trim();
  if (!why) throw AppError.badRequest('subject.site_reason_required', SITE_MOVE_MSG.reasonRequired);
  await ctx.db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: subjects.id, studyId: subjects.studyId, deptId: subjects.deptId })
      .from(subjects)
      .where(and(eq(subjects.id, subjectId), eq(subjects.studyId, access.studyId), isNull(subjects.deletedAt)))
      .for('update');
    if (!existing) throw notFound();
    if (existing.deptId === deptId) throw AppError.badRequest('subject.site_same', SITE_MOVE_MSG.sameSite);
    if (!(await departmentExists(tx, deptId))) {
      throw AppError.badRequest('subject.site_unknown', SITE_MOVE_MSG.unknownSite);
    }
    const [record] = await tx
      .select({ id: subjectRecords.id })
      .from(subjectRecords)
      .where(eq(subjectRecords.subjectId, subjectId));
    await assertWritable(tx, { studyId: existing.studyId, subjectRecordId: record?.id, siteId: deptId });
    await tx.update(subjects).set({ deptId, updatedAt: ctx.clock() }).where(eq(subjects.id, subjectId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: existing.studyId,
        subjectRecordId: record?.id ?? null,
        action: 'subject.site',
        itemName: 'deptId',
        oldValue: existing.deptId,
        newValue: deptId,
        reason: why,
      },
    ]);
  });
  return getSubject(ctx, subjectId, access);
}

export async function setRecordState(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  state: number,
  reason?: string,
) {
  if (state === 2 && !reason?.trim()) throw AppError.badRequest('subject_record.reason_required', '请填写退出原因');
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)))
      .for('update');
    if (!record) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId });
    if (record.state === state) return;
    await tx
      .update(subjectRecords)
      .set({ state, updatedAt: ctx.clock() })
      .where(eq(subjectRecords.id, subjectRecordId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: record.studyId,
        subjectRecordId,
        action: 'subject.state',
        itemName: 'state',
        oldValue: record.state,
        newValue: state,
        reason: reason ?? null,
      },
    ]);
  });
}

/** Soft delete: the casebook disappears from lists, stays in the database, and can be restored. */
export async function deleteRecord(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  reason: string,
  restore = false,
) {
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx.select().from(subjectRecords).where(eq(subjectRecords.id, subjectRecordId)).for('update');
    if (!record || Boolean(record.deletedAt) === !restore) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId, wholeCasebook: true });
    const deletedAt = restore ? null : ctx.clock();
    if (restore) {
      const [subject] = await tx.select().from(subjects).where(eq(subjects.id, record.subjectId));
      if (subject && (await isCodeTaken(tx, record.studyId, subject.identificationCode, subject.id))) {
        throw AppError.conflict('subject.code_taken', `${MSG.codeTaken}，无法恢复`);
      }
      if (subject?.idNumberHash) {
        const [twin] = await tx
          .select({ id: subjects.id })
          .from(subjects)
          .where(
            and(
              eq(subjects.studyId, record.studyId),
              eq(subjects.idNumberHash, subject.idNumberHash),
              isNull(subjects.deletedAt),
            ),
          );
        if (twin && twin.id !== subject.id) {
          throw AppError.conflict('subject.id_number_taken', `${MSG.idNumberTaken}，无法恢复`);
        }
      }
    }
    await tx
      .update(subjectRecords)
      .set({ deletedAt, updatedAt: ctx.clock() })
      .where(eq(subjectRecords.id, subjectRecordId));
    await tx.update(subjects).set({ deletedAt, updatedAt: ctx.clock() }).where(eq(subjects.id, record.subjectId));
    await audit(tx, user, ctx.clock(), [
      { studyId: record.studyId, subjectRecordId, action: restore ? 'subject.restore' : 'subject.delete', reason },
    ]);
  });
}

/**
 * The investigator's signature over a casebook (21 CFR Part 11 §11.200): the password is
 * re-entered at signing, and the signature records signer, meaning and time.
 */
export async function signRecord(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectRecordId: number,
  password: string,
  meaning?: string,
) {
  await reauthenticate(ctx, user, password, () => AppError.badRequest('sign.password_wrong', '密码错误，签名未完成'));
  const [study] = await ctx.db
    .select({ signConfig: studies.signConfig })
    .from(studies)
    .where(eq(studies.studyId, access.studyId));
  const text = meaning?.trim() || study?.signConfig.meaning || '本人确认以上数据真实、准确、完整';
  const id = await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, subjectRecordId), isNull(subjectRecords.deletedAt)));
    if (!record) throw notFound();
    await assertWritable(tx, { studyId: record.studyId, subjectRecordId });
    const [row] = await tx
      .insert(signatures)
      .values({
        studyId: record.studyId,
        subjectRecordId,
        userId: user.userId,
        signerName: user.name,
        meaning: text,
        signedAt: ctx.clock(),
      })
      .returning({ id: signatures.id });
    await audit(tx, user, ctx.clock(), [
      { studyId: record.studyId, subjectRecordId, action: 'subject.sign', newValue: { meaning: text }, reason: text },
    ]);
    return row!.id;
  });
  return (await listSignatures(ctx, subjectRecordId)).find((s) => s.id === id)!;
}
