import crypto from 'node:crypto';
import type { UploadTokenAnswer } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { and, asc, eq, inArray, lt } from 'drizzle-orm';
import { objectUploads, storedFiles } from '../../db/schema/index.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';
import {
  MAX_UPLOAD_BYTES,
  THUMBNAIL_SUFFIX,
  checkThumbnailTarget,
  detectedType,
  isAllowedType,
  looksLikeText,
  mayReadFile,
  openFileRow,
  recordFile,
  refusal,
  servingHeaders,
} from './file.service.js';

/**
 * The external network mode (forms §7, platform §7, docs/object-storage.md): the server hands out a
 * presigned form post for one exact key, the browser sends the bytes straight to the object store, and a
 * confirm call makes the server read the object back (hash, type by its bytes, size) and record it under
 * the study, as the internal upload does. Values hold `domain + key`; the domain is this server's read
 * path, so every read still passes the study membership and form-visibility checks before the server
 * answers with a short-lived address on the store.
 */

/** `GET /api/v1/qiniu/upload/token?type=`: 1 image, 2 video, 3 any other file. */
export const UPLOAD_KINDS = {
  1: { plural: 'images', typePrefix: 'image/' },
  2: { plural: 'videos', typePrefix: 'video/' },
  3: { plural: 'files', typePrefix: '' },
} as const;
export type UploadKind = keyof typeof UPLOAD_KINDS;

/** Where a stored object is read: a path of this server under the file cookie's path (an <img> carries it). */
export const OBJECT_DOMAIN = '/api/v1/fileupload/object/';

/** forms §5: a video must be under 500 MB; every other file keeps the internal mode's bound. */
const maxBytesOf = (kind: UploadKind) => (kind === 2 ? MAX_UPLOAD_BYTES - 1 : MAX_UPLOAD_BYTES);
const TOKEN_SECONDS = 15 * 60;
/** A pending upload may be confirmed this long after its token: a 500 MB video on a ward's line takes a while. */
const PENDING_MS = 6 * 60 * 60 * 1000;
const READ_SECONDS = 5 * 60;

const pendingKey = (key: string) => `object-upload:${key}`;

interface Pending {
  userId: number;
  studyId: number;
  fileName: string;
  kind: UploadKind;
}

/** The stored_files key of an object: derived from its object key, so the read path needs no lookup table. */
export const objectFileKey = (key: string) =>
  crypto.createHash('sha256').update(`object:${key}`).digest('hex').slice(0, 32);

/**
 * The key's last segment: the original name with anything but letters (Chinese included), digits, dot,
 * underscore and hyphen turned into `_`, so the address needs no quoting rules of its own. The original name
 * is kept unchanged in stored_files.
 */
export function objectName(fileName: string): string {
  const safe = fileName
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^[._]+/, '');
  return (safe.length > 120 ? safe.slice(-120) : safe) || 'file';
}

/** A key as it appears inside a LIKE pattern: its `_` (and any `%`, `\`) matched literally. */
const likeLiteral = (key: string) => key.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The token call's answer (core's file contract). */
export type { UploadTokenAnswer };

export async function issueUploadToken(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  input: { kind: UploadKind; fileName: string; size?: number; thumbnailOf?: string | undefined },
): Promise<UploadTokenAnswer> {
  const direct = ctx.files.direct;
  // Without an object store the internal mode is the installation's mode: the browser uploads to this server.
  if (!direct) return { networkMode: 'internal' };
  if (input.size !== undefined && input.size > maxBytesOf(input.kind)) {
    throw AppError.badRequest('file.too_large', '上传文件大小不能超过500MB!');
  }
  let key: string;
  let kind = input.kind;
  if (input.thumbnailOf !== undefined) {
    // UPL-17: a video's first frame sits beside it, under the video's key plus _thumbnail.jpg.
    kind = 1;
    key = `${input.thumbnailOf}${THUMBNAIL_SUFFIX}`;
    await checkThumbnailTarget(ctx, user, studyId, objectFileKey(input.thumbnailOf), objectFileKey(key));
    if ((await ctx.kv.incr(`object-key:${key}`, PENDING_MS)) !== 1) {
      throw AppError.conflict('file.thumbnail_exists', '缩略图已存在');
    }
  } else {
    const { plural } = UPLOAD_KINDS[input.kind];
    const name = objectName(input.fileName);
    // forms §7: type-plural/timestamp/filename. Two uploads of one name in one millisecond get the next one.
    let stamp = ctx.clock().getTime();
    key = `${plural}/${stamp}/${name}`;
    while ((await ctx.kv.incr(`object-key:${key}`, PENDING_MS)) !== 1) {
      stamp += 1;
      key = `${plural}/${stamp}/${name}`;
    }
  }
  const { typePrefix } = UPLOAD_KINDS[kind];
  const post = await direct.presignPost({
    key,
    maxBytes: maxBytesOf(kind),
    contentTypePrefix: typePrefix,
    expiresSeconds: TOKEN_SECONDS,
  });
  const pending: Pending = { userId: user.userId, studyId, fileName: input.fileName, kind };
  // Kept until the confirm: bytes posted under a key never confirmed are removed by the cleanup task.
  const issuedAt = ctx.clock();
  await ctx.db
    .insert(objectUploads)
    .values({ objectKey: key, studyId, userId: user.userId, issuedAt })
    .onConflictDoUpdate({ target: objectUploads.objectKey, set: { studyId, userId: user.userId, issuedAt } });
  await ctx.kv.set(pendingKey(key), JSON.stringify(pending), PENDING_MS);
  return {
    networkMode: 'external',
    // Opaque to the spec's client: the store's form address and the signed fields the file is posted with.
    uploadToken: Buffer.from(JSON.stringify(post)).toString('base64url'),
    domain: OBJECT_DOMAIN,
    key,
  };
}

/** Reads a posted object back and records it; an object that breaks a rule is removed from the store. */
export async function confirmUpload(ctx: AppContext, user: CurrentUser, studyId: number, key: string) {
  const direct = ctx.files.direct;
  if (!direct) throw AppError.notFound('file.not_found', '文件不存在');
  const raw = await ctx.kv.get(pendingKey(key));
  const pending = raw === null ? null : (JSON.parse(raw) as Pending);
  // Only the user who was given the token, in the study it was given for, confirms it, once.
  if (!pending || pending.userId !== user.userId || pending.studyId !== studyId) {
    throw AppError.notFound('file.not_found', '文件不存在');
  }
  const head = await direct.head(key);
  if (!head) throw AppError.notFound('file.not_found', '文件不存在');
  if ((await ctx.kv.take(pendingKey(key))) === null) throw AppError.notFound('file.not_found', '文件不存在');
  try {
    if (head.size > maxBytesOf(pending.kind)) throw AppError.badRequest('file.too_large', '上传文件大小不能超过500MB!');
    const stream = await ctx.files.get(key);
    if (!stream) throw AppError.notFound('file.not_found', '文件不存在');
    const hash = crypto.createHash('sha256');
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    if (size === 0) throw AppError.badRequest('file.empty', '文件为空');
    let contentType = await detectedType(ctx, key);
    if (!contentType && /\.(txt|csv)$/i.test(pending.fileName) && (await looksLikeText(ctx, key))) {
      contentType = 'text/plain; charset=utf-8';
    }
    // The store checked the declared type; the bytes decide here, as in the internal mode.
    if (!isAllowedType(contentType) || !contentType.startsWith(UPLOAD_KINDS[pending.kind].typePrefix)) {
      throw AppError.badRequest('file.type_refused', '不支持的文件类型');
    }
    const file = { fileKey: objectFileKey(key), size, sha256: hash.digest('hex'), contentType };
    const recorded = await recordFile(ctx, user, studyId, file, pending.fileName);
    await ctx.db.delete(objectUploads).where(eq(objectUploads.objectKey, key));
    const url = `${OBJECT_DOMAIN}${key}`;
    return { ...recorded, filePath: url, url, key, sha256: file.sha256 };
  } catch (err) {
    await ctx.files.delete(key);
    await ctx.db.delete(objectUploads).where(eq(objectUploads.objectKey, key));
    throw err;
  }
}

/**
 * An upload token's key not confirmed this long after the token is given up (docs/object-storage.md): well past
 * the 6 hours a token's upload may still be confirmed, so no confirm can race the removal.
 */
export const UNCONFIRMED_OBJECT_RETENTION_HOURS = 24;
/** Keys looked at per run; the task runs every hour and catches up on what is left. */
const CLEANUP_BATCH = 1000;

/**
 * Removes from the object store what was posted under a token's key and never confirmed (the browser closed, the
 * confirm refused the network, a script used the token and stopped): no stored_files row, no study rule reads it,
 * so only the bytes would stay. A key whose file was recorded after all (a confirm whose last step failed) is kept.
 */
export function unconfirmedObjectsCleanup(ctx: AppContext): ScheduledTask {
  return {
    name: 'cleanup.unconfirmed-objects',
    every: 'hour',
    async run(now) {
      const before = new Date(now.getTime() - UNCONFIRMED_OBJECT_RETENTION_HOURS * 3_600_000);
      const stale = await ctx.db
        .select({ objectKey: objectUploads.objectKey })
        .from(objectUploads)
        .where(lt(objectUploads.issuedAt, before))
        .orderBy(asc(objectUploads.issuedAt))
        .limit(CLEANUP_BATCH);
      const recorded = new Set(
        (
          await ctx.db
            .select({ fileKey: storedFiles.fileKey })
            .from(storedFiles)
            .where(
              inArray(
                storedFiles.fileKey,
                stale.map((s) => objectFileKey(s.objectKey)),
              ),
            )
        ).map((r) => r.fileKey),
      );
      let removed = 0;
      for (const { objectKey } of stale) {
        // Without an object store (S3_* removed since) there is nothing to remove: the rows go all the same.
        if (ctx.files.direct && !recorded.has(objectFileKey(objectKey)) && (await ctx.files.exists(objectKey))) {
          await ctx.files.delete(objectKey);
          removed += 1;
        }
        await ctx.db.delete(objectUploads).where(eq(objectUploads.objectKey, objectKey));
      }
      return `${removed} unconfirmed uploads removed from the object store, ${stale.length} upload keys given up`;
    },
  };
}

/** A short-lived address of a stored object for a caller who may read it (403 otherwise). */
export async function objectReadUrl(ctx: AppContext, user: CurrentUser, access: StudyAccess, key: string) {
  const direct = ctx.files.direct;
  if (!direct) throw AppError.notFound('file.not_found', '文件不存在');
  const fileKey = objectFileKey(key);
  const readable =
    (await mayReadFile(ctx, user, access, fileKey, likeLiteral(key))) ||
    (await mayReadAsThumbnail(ctx, user, access, key));
  if (!readable) throw await refusal(ctx, user, access, fileKey, likeLiteral(key));
  const row = await openFileRow(ctx, fileKey);
  const headers = servingHeaders(row.contentType, row.fileName);
  return direct.presignGet(
    key,
    { contentType: row.contentType, contentDisposition: headers['content-disposition'] ?? 'attachment' },
    READ_SECONDS,
  );
}

/**
 * UPL-17: a thumbnail is read under its video's rule. Only when the video exists and both were uploaded by one
 * person (the token call lets nobody else add it), so an image merely named `…_thumbnail.jpg` gains nothing.
 */
async function mayReadAsThumbnail(ctx: AppContext, user: CurrentUser, access: StudyAccess, key: string) {
  if (!key.endsWith(THUMBNAIL_SUFFIX)) return false;
  const videoKey = key.slice(0, -THUMBNAIL_SUFFIX.length);
  const videoFileKey = objectFileKey(videoKey);
  const rows = await ctx.db
    .select({ fileKey: storedFiles.fileKey, createdBy: storedFiles.createdBy, contentType: storedFiles.contentType })
    .from(storedFiles)
    .where(
      and(eq(storedFiles.studyId, access.studyId), inArray(storedFiles.fileKey, [videoFileKey, objectFileKey(key)])),
    );
  const video = rows.find((r) => r.fileKey === videoFileKey);
  const thumbnail = rows.find((r) => r.fileKey !== videoFileKey);
  if (!video || !thumbnail || video.createdBy !== thumbnail.createdBy || !video.contentType.startsWith('video/')) {
    return false;
  }
  return mayReadFile(ctx, user, access, videoFileKey, likeLiteral(videoKey));
}
