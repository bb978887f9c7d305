import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { fileTypeFromStream } from 'file-type';
import type { AppContext } from '../../app-context.js';
import { auditEvents, crfDataRecords, storedFiles } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { isViewableSource } from '../recognition/recognition-sources.js';

/** forms §5: video under 500 MB; the same bound for every file. */
export const MAX_UPLOAD_BYTES = 500 * 1024 * 1024;

const ALLOWED = new Set([
  'image/jpeg',
  'image/png',
  'image/bmp',
  'image/gif',
  'image/webp',
  'image/tiff',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/x-msvideo',
  'video/x-matroska',
  'application/pdf',
  'application/dicom',
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/x-cfb',
]);
const TEXT_EXTENSIONS = /\.(txt|csv)$/i;

/**
 * The only types shown in the browser (thumbnails, the image viewer, the video player): pictures
 * and video, which can't run script. Everything else (PDF, office files, text, archives, and any
 * SVG or HTML that ever got stored) is handed out as a download, so it never opens as a
 * document of this origin with the user's session.
 */
const SHOWN_INLINE = new Set([
  'image/jpeg',
  'image/png',
  'image/bmp',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/x-msvideo',
  'video/x-matroska',
]);

/**
 * Headers for serving a stored file. The sandbox policy holds even when a file is opened
 * directly in a tab: no script, no forms, no same-origin access.
 */
export function servingHeaders(contentType: string, fileName: string): Record<string, string> {
  const inline = SHOWN_INLINE.has(contentType);
  return {
    'content-type': contentType,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; img-src 'self'; media-src 'self'; frame-ancestors 'none'; sandbox",
    'content-disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(fileName)}`,
  };
}

/** Where an upload's bytes are kept in the file storage (DATA_DIR/files/ab/ab12… on the local disk). */
export const storageKeyOf = (fileKey: string) => `files/${fileKey.slice(0, 2)}/${fileKey}`;

/** Text files have no signature: accept them only when they look like text (no NUL byte in the first 4 KB). */
export async function looksLikeText(ctx: AppContext, key: string) {
  const stream = await ctx.files.get(key);
  if (!stream) return false;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of stream) {
      head = Buffer.concat([head, chunk as Buffer]);
      if (head.length >= 4096) break;
    }
  } finally {
    stream.destroy();
  }
  return !head.subarray(0, 4096).includes(0);
}

export async function detectedType(ctx: AppContext, key: string) {
  const stream = await ctx.files.get(key);
  if (!stream) return undefined;
  try {
    return (await fileTypeFromStream(stream))?.mime as string | undefined;
  } finally {
    stream.destroy();
  }
}

export const isAllowedType = (contentType: string | undefined): contentType is string =>
  contentType !== undefined && (ALLOWED.has(contentType) || contentType.startsWith('text/plain'));

/**
 * Streams an upload into the file storage while hashing it, then decides its type by its bytes, not
 * its name: anything that is not an image, video, PDF, DICOM, office document or plain text is
 * refused and removed again.
 */
export async function receiveFile(
  ctx: AppContext,
  stream: Readable & { truncated?: boolean },
  fileName: string,
  /** A video's first frame (UPL-17) is kept under a key derived from the video's; any other file gets a random one. */
  fixedKey?: string,
) {
  const fileKey = fixedKey ?? crypto.randomBytes(16).toString('hex');
  const key = storageKeyOf(fileKey);
  const hash = crypto.createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await storeStream(ctx, key, stream, meter);
    if (stream.truncated || size > MAX_UPLOAD_BYTES) {
      throw AppError.badRequest('file.too_large', '上传文件大小不能超过500MB!');
    }
    if (size === 0) throw AppError.badRequest('file.empty', '文件为空');
    let contentType = await detectedType(ctx, key);
    if (!contentType && TEXT_EXTENSIONS.test(fileName) && (await looksLikeText(ctx, key))) {
      contentType = 'text/plain; charset=utf-8';
    }
    if (!isAllowedType(contentType)) throw AppError.badRequest('file.type_refused', '不支持的文件类型');
    return { fileKey, size, sha256: hash.digest('hex'), contentType };
  } catch (err) {
    await ctx.files.delete(key);
    throw err;
  }
}

/**
 * One error path from the upload to the storage. `pipeline` listens on the upload from this call on, so an upload
 * that fails now (a body cut short, a closed connection) or already failed while the caller was checking
 * permissions rejects here and fails the write with it. Piping by hand heard neither: an error raised before the
 * storage attached its own listener had none and ended the process, and an upload destroyed before it was piped
 * never ended, so the write and its request waited forever.
 */
async function storeStream(ctx: AppContext, key: string, upload: Readable, meter: Transform): Promise<void> {
  const received = pipeline(upload, meter);
  const written = ctx.files.put(key, meter);
  // A write that fails first (a full disk, the object store) stops the reading with its error, so `received`
  // settles too, and with the cause.
  written.catch((err: unknown) => meter.destroy(err instanceof Error ? err : new Error(String(err))));
  const [read, write] = await Promise.allSettled([received, written]);
  // When the upload failed, that is what went wrong (the client's doing); the write's failure only follows from it.
  if (read.status === 'rejected') throw read.reason;
  if (write.status === 'rejected') throw write.reason;
}

export async function recordFile(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  file: { fileKey: string; size: number; sha256: string; contentType: string },
  fileName: string,
) {
  await ctx.db
    .insert(storedFiles)
    .values({ ...file, studyId, fileName: fileName.slice(0, 255), createdBy: user.userId, createdAt: ctx.clock() });
  return { fileKey: file.fileKey, filePath: file.fileKey, fileName, size: file.size, contentType: file.contentType };
}

/**
 * UPL-17 (forms §7): a video's thumbnail is named by the video's value plus this suffix. In the internal mode
 * the download call takes `<video key>_thumbnail.jpg`; in the external mode the object key is the video's plus
 * the suffix. The browser draws the first frame and uploads it right after the video (no ffmpeg on the server).
 */
export const THUMBNAIL_SUFFIX = '_thumbnail.jpg';

/** The stored_files key of an internal video's thumbnail: derived, so the read path needs no link table. */
export const thumbnailFileKey = (videoFileKey: string) =>
  crypto.createHash('sha256').update(`thumbnail:${videoFileKey}`).digest('hex').slice(0, 32);

/**
 * Only the video's uploader adds its thumbnail, once, in the video's study, right after the upload: nobody can
 * put a picture of their own in front of someone else's video.
 */
export async function checkThumbnailTarget(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  videoFileKey: string,
  thumbnailKey: string,
) {
  const rows = await ctx.db
    .select({
      fileKey: storedFiles.fileKey,
      studyId: storedFiles.studyId,
      createdBy: storedFiles.createdBy,
      contentType: storedFiles.contentType,
    })
    .from(storedFiles)
    .where(inArray(storedFiles.fileKey, [videoFileKey, thumbnailKey]));
  const video = rows.find((r) => r.fileKey === videoFileKey);
  if (
    !video ||
    video.studyId !== studyId ||
    video.createdBy !== user.userId ||
    !video.contentType.startsWith('video/')
  ) {
    throw AppError.notFound('file.not_found', '文件不存在');
  }
  if (rows.some((r) => r.fileKey === thumbnailKey)) {
    throw AppError.conflict('file.thumbnail_exists', '缩略图已存在');
  }
}

/** A video's thumbnail, read under the video's rule (the same viewers; UPL-17). */
export async function readThumbnail(ctx: AppContext, user: CurrentUser, access: StudyAccess, videoFileKey: string) {
  if (!(await mayReadFile(ctx, user, access, videoFileKey))) throw await refusal(ctx, user, access, videoFileKey);
  return openFile(ctx, thumbnailFileKey(videoFileKey));
}

/** A stored file for a caller who may read it (403 otherwise), with its row and a stream of its bytes. */
export async function readFile(ctx: AppContext, user: CurrentUser, access: StudyAccess, fileKey: string) {
  if (!(await mayReadFile(ctx, user, access, fileKey))) throw await refusal(ctx, user, access, fileKey);
  return openFile(ctx, fileKey);
}

/**
 * Why a file is refused: one the caller would read but for its patient's site is answered 404, as that patient is
 * (docs/multi-centre.md); any other 403.
 */
export async function refusal(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  fileKey: string,
  needle: string = fileKey,
): Promise<AppError> {
  if (access.siteIds !== null && (await mayReadFile(ctx, user, { ...access, siteIds: null }, fileKey, needle))) {
    return AppError.notFound('file.not_found', '文件不存在');
  }
  return AppError.forbidden();
}

export async function openFileRow(ctx: AppContext, fileKey: string) {
  const [row] = await ctx.db.select().from(storedFiles).where(eq(storedFiles.fileKey, fileKey));
  if (!row) throw AppError.notFound('file.not_found', '文件不存在');
  return row;
}

export async function openFile(ctx: AppContext, fileKey: string) {
  const row = await openFileRow(ctx, fileKey);
  const stream = await ctx.files.get(storageKeyOf(fileKey));
  if (!stream) throw AppError.notFound('file.not_found', '文件不存在');
  return { row, stream };
}

/**
 * A file is read under the rule of the form that holds it: its uploader may read it (a form not
 * saved yet), and so may whoever may view a CRF whose live record, or whose audit trail, refers to
 * it, of a patient at one of the caller's sites. A member whose study role grants no form sees no file.
 */
export async function mayReadFile(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  fileKey: string,
  /** What a value holding the file contains: its key, or an object store key (external mode, LIKE-escaped). */
  needle: string = fileKey,
): Promise<boolean> {
  if (access.all) return true;
  const [file] = await ctx.db
    .select({ createdBy: storedFiles.createdBy })
    .from(storedFiles)
    .where(eq(storedFiles.fileKey, fileKey));
  if (!file) return false;
  if (file.createdBy === user.userId) return true;
  const viewable = viewableCrfIds(access) ?? [];
  if (viewable.length === 0) return false;
  // A key is 32 hex characters (checked by the route), so it is safe inside a LIKE pattern; object keys come escaped.
  const [holder] = await ctx.db
    .select({ id: crfDataRecords.id })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.studyId, access.studyId),
        inArray(crfDataRecords.crfId, viewable),
        isNull(crfDataRecords.deletedAt),
        recordInCallerSites(access, crfDataRecords.subjectRecordId),
        sql`${crfDataRecords.values}::text like ${`%${needle}%`}`,
      ),
    )
    .limit(1);
  if (holder) return true;
  // A file the record no longer holds (replaced, or its record deleted) is still part of the audit
  // trail, which the same viewers read: monitors must be able to open what an old value referred to.
  const [trail] = await ctx.db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.studyId, access.studyId),
        inArray(auditEvents.crfId, viewable),
        recordInCallerSites(access, auditEvents.subjectRecordId),
        or(
          sql`${auditEvents.oldValue}::text like ${`%${needle}%`}`,
          sql`${auditEvents.newValue}::text like ${`%${needle}%`}`,
        ),
      ),
    )
    .limit(1);
  if (trail) return true;
  // The source image of a recognised form (智能识别), for SDV: whoever may view the form may open it.
  return isViewableSource(ctx, access, fileKey);
}
