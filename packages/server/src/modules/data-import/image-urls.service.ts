import { and, asc, eq, isNull } from 'drizzle-orm';
import {
  DATA_IMPORT_REASON,
  FORM_STATE,
  readMediaList,
  writeMediaList,
  type ImageEntry,
  type ImageUrlsBody,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs, storedFiles, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { can, isRepeatable, liveRecordsOfForm } from '../crf-data/crf-data.service.js';
import { saveForm } from '../crf-data/form-write.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { receiveFile, recordFile, storageKeyOf } from '../files/file.service.js';
import { fetchAllowed, IMAGE_URL_MAX_BYTES, judgeUrl, UrlRefused, type UrlTarget } from './image-url.js';

interface Entry {
  index: number;
  subjectRecordId: number;
  crfId: number;
  instance: number | null;
  item: string;
  target: UrlTarget;
  remarks: string;
  fileName: string;
}

interface Stored {
  entry: Entry;
  fileKey: string;
  /** What the image item holds: the file key, or the object address of a file in the object store. */
  value: string;
  sha256: string;
  fresh: boolean;
}

const refusal = (errors: Array<{ index: number; message: string }>) =>
  AppError.badRequest('import.image_refused', errors.length === 1 ? errors[0]!.message : '部分图片地址不能导入', {
    errors,
  });

async function patientOf(db: Db, studyId: number, entry: ImageUrlsBody['items'][number]) {
  const [row] = await db
    .select({ subjectRecordId: subjectRecords.id, siteId: subjects.deptId })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(
      and(
        eq(subjectRecords.studyId, studyId),
        isNull(subjectRecords.deletedAt),
        isNull(subjects.deletedAt),
        entry.subjectRecordId !== undefined
          ? eq(subjectRecords.id, entry.subjectRecordId)
          : eq(subjects.identificationCode, entry.identificationCode!),
      ),
    );
  return row;
}

/**
 * Attaches images to image items from URLs (SRCH-07). Every entry is judged first (patient of this study,
 * a form the user may edit, an image item, a URL of this platform's storage or an allowed host); then the
 * images are fetched and stored like uploads (type by their bytes, size capped, a stored_files row with the
 * hash); then all the forms are saved in one transaction through the form page's save, each image item's
 * change audited with the reason 数据导入 and the images' SHA-256. Any refusal: nothing is kept.
 */
export async function attachImageUrls(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  body: ImageUrlsBody,
  ownHost: string,
) {
  const errors: Array<{ index: number; message: string }> = [];
  const entries: Entry[] = [];
  for (const [index, item] of body.items.entries()) {
    const fail = (message: string) => errors.push({ index, message });
    const patient = await patientOf(ctx.db, access.studyId, item);
    if (!patient) {
      fail('本项目中没有此患者');
      continue;
    }
    // An entry names its patient inside `items`, where the study guard does not look: the site is checked here.
    if (!seesSite(access, patient.siteId)) {
      fail('患者不在您的中心范围内');
      continue;
    }
    const { subjectRecordId } = patient;
    const [crf] = await ctx.db
      .select({ id: crfs.id, currentVersion: crfs.currentVersion })
      .from(crfs)
      .where(
        and(
          eq(crfs.studyId, access.studyId),
          typeof item.crf === 'number' ? eq(crfs.id, item.crf) : eq(crfs.title, item.crf),
        ),
      );
    if (!crf) {
      fail('本项目中没有此CRF');
      continue;
    }
    if (!can(access, crf.id, 'save')) {
      fail('您没有编辑此表单的权限');
      continue;
    }
    const node = nodesOf(await definitionOf(ctx.db, crf.id, crf.currentVersion)).get(item.item);
    if (node?.type !== 'imageUpload') {
      fail('该题目不是图片题');
      continue;
    }
    try {
      const target = judgeUrl(item.url, ownHost, ctx.config.imageUrlHosts, ctx.config.imageUrlPrivateNetworks);
      const fileName =
        target.kind === 'remote' ? decodeURIComponent(target.url.pathname.split('/').pop() || 'image') : '';
      entries.push({
        index,
        subjectRecordId,
        crfId: crf.id,
        instance: item.instance ?? null,
        item: item.item,
        target,
        remarks: item.remarks ?? '',
        fileName: fileName.slice(0, 200) || 'image',
      });
    } catch (err) {
      if (!(err instanceof UrlRefused)) throw err;
      fail(err.message);
    }
  }
  if (errors.length > 0) throw refusal(errors);

  const stored: Stored[] = [];
  const forget = async () => {
    for (const s of stored.filter((x) => x.fresh)) {
      await ctx.db.delete(storedFiles).where(eq(storedFiles.fileKey, s.fileKey));
      await ctx.files.delete(storageKeyOf(s.fileKey));
    }
  };
  try {
    for (const entry of entries) {
      if (entry.target.kind === 'own') {
        const own = entry.target.file;
        const [file] = await ctx.db
          .select()
          .from(storedFiles)
          .where(and(eq(storedFiles.fileKey, own.fileKey), eq(storedFiles.studyId, access.studyId)));
        if (!file) errors.push({ index: entry.index, message: '文件不存在或不属于本项目' });
        else if (!file.contentType.startsWith('image/')) errors.push({ index: entry.index, message: '文件不是图片' });
        else stored.push({ entry, fileKey: file.fileKey, value: own.value, sha256: file.sha256, fresh: false });
        continue;
      }
      try {
        const body = await fetchAllowed(entry.target.url, ctx.config.imageUrlPrivateNetworks);
        const file = await receiveFile(ctx, body, entry.fileName);
        if (!file.contentType.startsWith('image/')) {
          await ctx.files.delete(storageKeyOf(file.fileKey));
          errors.push({ index: entry.index, message: '地址返回的内容不是图片' });
          continue;
        }
        await recordFile(ctx, user, access.studyId, file, entry.fileName);
        stored.push({ entry, fileKey: file.fileKey, value: file.fileKey, sha256: file.sha256, fresh: true });
      } catch (err) {
        if (err instanceof UrlRefused) errors.push({ index: entry.index, message: err.message });
        else if (err instanceof AppError && err.code === 'file.too_large') {
          errors.push({ index: entry.index, message: `图片超过${IMAGE_URL_MAX_BYTES / 1024 / 1024}MB` });
        } else if (err instanceof AppError && err.code.startsWith('file.')) {
          errors.push({
            index: entry.index,
            message: err.code === 'file.type_refused' ? '地址返回的内容不是图片' : err.message,
          });
        } else throw err;
      }
    }
    if (errors.length > 0) throw refusal(errors);
    await saveImages(ctx, user, access, stored);
  } catch (err) {
    await forget();
    throw err;
  }
  return stored.map((s) => ({ index: s.entry.index, fileKey: s.fileKey, sha256: s.sha256 }));
}

async function saveImages(ctx: AppContext, user: CurrentUser, access: StudyAccess, stored: Stored[]) {
  const groups = new Map<string, Stored[]>();
  for (const s of stored) {
    const key = `${s.entry.subjectRecordId}:${s.entry.crfId}:${s.entry.instance ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const events = Object.assign(Object.create(ctx.events) as AppContext['events'], {
    delivered: () => Promise.resolve(false),
  });
  const uploadTime = ctx.clock().toISOString().slice(0, 19).replace('T', ' ');
  await ctx.db.transaction(async (tx) => {
    const txCtx: AppContext = { ...ctx, db: tx, events };
    for (const list of groups.values()) {
      const { subjectRecordId, crfId, instance } = list[0]!.entry;
      const records = await tx
        .select()
        .from(crfDataRecords)
        .where(liveRecordsOfForm(subjectRecordId, crfId))
        .orderBy(asc(crfDataRecords.id));
      const repeatable = await isRepeatable(tx, crfId);
      if (repeatable && (!instance || instance > records.length + 1)) {
        throw refusal(
          list.map((s) => ({
            index: s.entry.index,
            message: `可重复表单须填写记录序号（1 到 ${records.length + 1}）`,
          })),
        );
      }
      const existing = repeatable ? records[instance! - 1] : records[0];
      const values: Record<string, unknown> = { ...(existing?.values ?? {}) };
      for (const s of list) {
        const images = readMediaList('image', values[s.entry.item]);
        const entry: ImageEntry = { uploadTime, remarks: s.entry.remarks, dialogImgUrl: s.value };
        values[s.entry.item] = writeMediaList([...images, entry]);
      }
      try {
        await saveForm(
          txCtx,
          { kind: 'staff', user, access },
          {
            subjectRecordId,
            crfId,
            crfDataRecordId: existing?.id ?? null,
            version: existing?.version ?? 0,
            values,
            submit: false,
            reason: `${DATA_IMPORT_REASON}（图片URL，SHA-256：${list.map((s) => s.sha256).join('、')}）`,
          },
        );
      } catch (err) {
        if (err instanceof AppError && err.status < 500) {
          throw refusal(
            list.map((s) => ({
              index: s.entry.index,
              message: existing?.state === FORM_STATE.submitted ? `表单已提交：${err.message}` : err.message,
            })),
          );
        }
        throw err;
      }
    }
  });
}
