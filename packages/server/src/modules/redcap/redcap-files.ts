// content=file: export, import and delete the file of one file field of one record.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { isEmptyValue } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import { seesSite } from '../../shared/study-access.js';
import { can } from '../crf-data/crf-data.service.js';
import { recordFile, storageKeyOf, type receiveFile } from '../files/file.service.js';
import { openStoredFile, storedFileOf } from '../files/stored-value.js';
import { ApiRefusal, type ApiCaller } from './api-token.service.js';
import { FILE_TYPES, recordsOfProject, refuse, withLiveCasebook, type Field, type Project } from './redcap-project.js';
import { inTransaction, saveThroughApi } from './redcap-save.js';

/** Where a file lives in REDCap's terms: record, field, and the event and repeat instance when there are any. */
export interface FileAddress {
  record: string;
  field: string;
  event: string;
  instance: string;
}

interface FileSlot {
  field: Field;
  item: string;
  subjectRecordId: number;
  existing: typeof crfDataRecords.$inferSelect | undefined;
  where: string;
}

/**
 * A file field of one record, for the caller: the field must be a visible file item (one file, as REDCap's
 * file field holds one; image and video items hold lists), the record an enrolled patient, the instance one
 * that exists (a new repeat instance only for an import). `mode` is what the caller is about to do.
 */
export async function locateFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  mode: 'export' | 'import' | 'delete',
): Promise<FileSlot> {
  if (!address.record) throw refuse('缺少参数 record');
  if (!address.field) throw refuse('缺少参数 field');
  const field = project.byVariable.get(address.field);
  if (!field?.node || !field.source.item) throw refuse(`字段 ${address.field} 不存在或无权查看`);
  if (!FILE_TYPES.has(field.node.type)) throw refuse(`字段 ${address.field} 不是文件字段`);
  if (field.node.type !== 'fileUpload') {
    throw refuse(`字段 ${address.field} 是图片或视频字段（可含多个文件），API 只能读写单个文件的文件字段`);
  }
  const instrument = field.instrument;
  if (instrument.rows) throw refuse(`字段 ${address.field} 在列表组中，API 不能读写列表组中的文件`);
  if (address.event && address.event !== instrument.event) {
    throw refuse(`字段 ${address.field} 不在事件 ${address.event} 中`);
  }
  if (mode !== 'export' && !can(caller.access, instrument.crfId, 'save')) {
    throw new ApiRefusal(403, `您没有修改表单 ${instrument.form} 的权限`);
  }
  let index = 0;
  if (instrument.repeating) {
    const n = address.instance === '' ? 1 : Number(address.instance);
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw refuse('参数 repeat_instance 应为正整数');
    index = n - 1;
  }
  const [subject] = await ctx.db
    .select({ recordId: subjectRecords.id, siteId: subjects.deptId })
    .from(subjects)
    .innerJoin(subjectRecords, withLiveCasebook)
    .where(recordsOfProject(project, eq(subjects.identificationCode, address.record)));
  // Another site's record: none to read; a change to it is refused by name, as a record import's is.
  if (!subject || (mode === 'export' && !seesSite(project, subject.siteId))) {
    throw refuse(`记录 ${address.record} 不存在`);
  }
  if (!seesSite(project, subject.siteId)) {
    throw new ApiRefusal(403, `记录 ${address.record} 不在您的中心范围内`);
  }
  const records = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, subject.recordId),
        eq(crfDataRecords.crfId, instrument.crfId),
        isNull(crfDataRecords.deletedAt),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  const existing = records[index];
  const where = `记录 ${address.record} 字段 ${address.field}${instrument.repeating ? ` 实例 ${index + 1}` : ''}`;
  if (!existing && (mode !== 'import' || index !== records.length)) {
    throw refuse(
      mode === 'import' ? `${where}：实例编号应连续，下一个新实例为 ${records.length + 1}` : `${where}：没有文件`,
    );
  }
  return { field, item: field.source.item, subjectRecordId: subject.recordId, existing, where };
}

/** The stored file a field holds: a key or the download call's address, or an object address (external mode). */
const fileIn = (slot: FileSlot) => storedFileOf(slot.existing?.values[slot.item]);

/** content=file action=export: the file a field of a record holds, with its original name. */
export async function exportFile(ctx: AppContext, caller: ApiCaller, project: Project, address: FileAddress) {
  const slot = await locateFile(ctx, caller, project, address, 'export');
  const ref = fileIn(slot);
  if (!ref) throw refuse(`${slot.where}：没有文件`);
  const file = await openStoredFile(ctx, ref);
  if (file.row.studyId !== project.studyId) {
    file.stream.destroy();
    throw refuse(`${slot.where}：没有文件`);
  }
  return file;
}

type Received = Awaited<ReturnType<typeof receiveFile>>;

/**
 * content=file action=import: an upload already received into the file storage (receiveFile, which
 * decided its type by its bytes) becomes the field's value through the form page's save. If the save is
 * refused, the bytes are removed again; a replaced file stays stored, as the audit trail refers to it.
 */
export async function importFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  upload: { stored: Received; fileName: string },
  reason: string | null,
) {
  try {
    await inTransaction(ctx, async (txCtx) => {
      const slot = await locateFile(txCtx, caller, project, address, 'import');
      await recordFile(txCtx, caller.user, project.studyId, upload.stored, upload.fileName);
      await saveThroughApi(txCtx, caller, project, {
        record: address.record,
        subjectRecordId: slot.subjectRecordId,
        crfId: slot.field.instrument.crfId,
        form: slot.field.instrument.form,
        existing: slot.existing,
        values: { ...(slot.existing?.values ?? {}), [slot.item]: upload.stored.fileKey },
        where: slot.where,
        reason,
      });
    });
  } catch (err) {
    await ctx.files.delete(storageKeyOf(upload.stored.fileKey));
    throw err;
  }
}

/** content=file action=delete: the field is emptied through the form page's save (the stored file stays, for the audit trail). */
export async function deleteFile(
  ctx: AppContext,
  caller: ApiCaller,
  project: Project,
  address: FileAddress,
  reason: string | null,
) {
  await inTransaction(ctx, async (txCtx) => {
    const slot = await locateFile(txCtx, caller, project, address, 'delete');
    if (!fileIn(slot) && isEmptyValue(slot.existing?.values[slot.item])) throw refuse(`${slot.where}：没有文件`);
    const values = { ...slot.existing!.values };
    delete values[slot.item];
    await saveThroughApi(txCtx, caller, project, {
      record: address.record,
      subjectRecordId: slot.subjectRecordId,
      crfId: slot.field.instrument.crfId,
      form: slot.field.instrument.form,
      existing: slot.existing,
      values,
      where: slot.where,
      reason,
    });
  });
}
