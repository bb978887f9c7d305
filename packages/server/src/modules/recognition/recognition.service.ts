import crypto from 'node:crypto';
import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { parseLabReport, recognitionAnswer, type LabRow, type RecognitionData } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs, recognitions, storedFiles, subjectRecords, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { siteOfRecord } from '../../shared/patient-site.js';
import { canViewCrf, viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { waitForJob } from '../export/export.service.js';
import { mayReadFile } from '../files/file.service.js';
import { OBJECT_DOMAIN, objectFileKey } from '../files/object-upload.service.js';
import { internalFile, objectFile, openStoredFile, storedFileOf, type StoredFileRef } from '../files/stored-value.js';
import { JobFailure, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import { OcrRefused, OcrUnavailable, ocrPool, type OcrPool } from './ocr.pool.js';

export const RECOGNITION_JOB_KIND = 'recognition';
/** How long a tempId may be spent (seconds). */
export const TEMP_ID_SECONDS = 600;
/** How long the public call waits for its job before answering 202 with the job to poll (ms). */
export const RECOGNITION_WAIT_MS = 60_000;
/** forms §9 asks for at most 3300 × 2400 at quality 100: a JPEG of that is far below this. */
export const MAX_IMAGE_BYTES = 30 * 1024 * 1024;

/** Types the OCR reads; of a PDF, every page (up to MAX_PDF_PAGES, pdf-pages.ts). */
const READABLE = new Set([
  'image/jpeg',
  'image/png',
  'image/bmp',
  'image/webp',
  'image/tiff',
  'image/gif',
  'application/pdf',
]);

export const MSG_FAILED = '识别失败';
export const MSG_UNAVAILABLE = '识别服务未安装';
export const MSG_TOO_MANY = '识别请求过于频繁，请稍后再试';
/** Why the OCR refused or stopped an image (OcrRefused): told to the caller, unlike other failures (识别失败). */
export const MSG_REFUSED = {
  'too-large': '图片尺寸过大，请缩小后重试',
  'too-many-pages': 'PDF页数过多，请拆分后重试',
  orientation: '图片方向不正，请旋转后重试',
  timeout: '识别超时，请缩小图片后重试',
  memory: '识别占用内存过多，请缩小图片后重试',
} as const satisfies Record<OcrRefused['reason'], string>;
const TOLD = new Set<string>([MSG_UNAVAILABLE, ...Object.values(MSG_REFUSED)]);

/**
 * tempIds one user may be issued per window (the tempId's own lifetime): each is an OCR job of 2–12 s on the one
 * OCR process, so 30 in 10 minutes lets a nurse enter a report every 20 s and no member hold the OCR for long.
 */
export const TEMP_IDS_PER_WINDOW = 30;
const TEMP_ID_WINDOW_MS = TEMP_ID_SECONDS * 1000;

/** Every refusal of the public call: one answer, whatever the reason, so the path reveals nothing. */
export const refused = () => new AppError(403, 'recognition.refused', MSG_FAILED);

const hashOf = (tempId: string) => crypto.createHash('sha256').update(tempId).digest('hex');

/**
 * The stored file a recognition call's url names (files/stored-value.ts): the key itself, the download call's
 * address, an object address of the external mode; or a URL of this platform whose last segment is the key.
 */
export function fileOfUrl(url: string): StoredFileRef | undefined {
  const stored = storedFileOf(url);
  if (stored) return stored;
  const path = /\/([0-9a-f]{32})(?:[?#]|$)/.exec(url.trim());
  return path ? (storedFileOf(path[1]) ?? undefined) : undefined;
}

export interface TempIdRequest {
  fileKey: string;
  crfId?: number | undefined;
  subjectRecordId?: number | undefined;
  crfDataRecordId?: number | undefined;
}

async function checkRecordLink(ctx: AppContext, access: StudyAccess, req: Omit<TempIdRequest, 'fileKey'>) {
  const { studyId } = access;
  if (req.crfId !== undefined) {
    const [crf] = await ctx.db
      .select({ id: crfs.id })
      .from(crfs)
      .where(and(eq(crfs.id, req.crfId), eq(crfs.studyId, studyId)));
    if (!crf || !canViewCrf(access, req.crfId)) throw AppError.forbidden();
  }
  if (req.subjectRecordId !== undefined) {
    const [record] = await ctx.db
      .select({ id: subjectRecords.id })
      .from(subjectRecords)
      .where(and(eq(subjectRecords.id, req.subjectRecordId), eq(subjectRecords.studyId, studyId)));
    if (!record) throw AppError.forbidden();
  }
  if (req.crfDataRecordId !== undefined) {
    const [data] = await ctx.db
      .select({ subjectRecordId: crfDataRecords.subjectRecordId, crfId: crfDataRecords.crfId })
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, req.crfDataRecordId), eq(crfDataRecords.studyId, studyId)));
    if (
      !data ||
      (req.subjectRecordId !== undefined && data.subjectRecordId !== req.subjectRecordId) ||
      (req.crfId !== undefined && data.crfId !== req.crfId) ||
      !canViewCrf(access, data.crfId)
    ) {
      throw AppError.forbidden();
    }
  }
}

/**
 * Counts a request for a tempId against the user's window (fixed windows, so the wait is known), in the shared
 * store: the database by default, Redis with REDIS_URL, so every app server counts the same requests. Refused
 * requests count too: each one reads the database.
 */
async function countTempId(ctx: AppContext, user: CurrentUser) {
  const now = ctx.clock().getTime();
  const window = Math.floor(now / TEMP_ID_WINDOW_MS);
  const count = await ctx.kv.incr(`recognition-temp:${user.userId}:${window}`, TEMP_ID_WINDOW_MS);
  if (count > TEMP_IDS_PER_WINDOW) {
    throw new AppError(429, 'recognition.too_many', MSG_TOO_MANY, {
      retryAfter: Math.ceil(((window + 1) * TEMP_ID_WINDOW_MS - now) / 1000),
    });
  }
}

/**
 * Issues a tempId for an uploaded image the caller may read in this study: single use, short-lived, bound to the
 * user, the study and the file. Only its hash is stored.
 */
export async function issueTempId(ctx: AppContext, user: CurrentUser, access: StudyAccess, req: TempIdRequest) {
  await countTempId(ctx, user);
  const [file] = await ctx.db
    .select({ contentType: storedFiles.contentType, size: storedFiles.size })
    .from(storedFiles)
    .where(and(eq(storedFiles.fileKey, req.fileKey), eq(storedFiles.studyId, access.studyId)));
  if (!file || !(await mayReadFile(ctx, user, access, req.fileKey))) throw AppError.forbidden();
  if (!READABLE.has(file.contentType)) throw AppError.badRequest('recognition.type_refused', '不支持的文件类型');
  if (file.size > MAX_IMAGE_BYTES) throw AppError.badRequest('recognition.too_large', '图片过大，请压缩后重试');
  await checkRecordLink(ctx, access, req);
  const tempId = crypto.randomBytes(32).toString('base64url');
  await ctx.db.insert(recognitions).values({
    studyId: access.studyId,
    userId: user.userId,
    fileKey: req.fileKey,
    tempIdHash: hashOf(tempId),
    expiresAt: new Date(ctx.clock().getTime() + TEMP_ID_SECONDS * 1000),
    crfId: req.crfId ?? null,
    subjectRecordId: req.subjectRecordId ?? null,
    crfDataRecordId: req.crfDataRecordId ?? null,
    createdAt: ctx.clock(),
  });
  return { tempId, expiresIn: TEMP_ID_SECONDS };
}

export interface RecognitionCall {
  url?: string | undefined;
  type: number;
  index: number;
  tempId?: string | undefined;
}

type RecognitionRow = typeof recognitions.$inferSelect;

/** The answer's `data` for a finished recognition, in the spec's shape for its type. */
export function answerOf(row: RecognitionRow): RecognitionData {
  return recognitionAnswer(row.type ?? 0, (row.rows as LabRow[] | null) ?? [], {
    fileKey: row.fileKey,
    recognitionId: row.id,
  });
}

/**
 * Spends a tempId and recognises its image as a job, waiting for it at most `waitMs`. `caller` is the user of a
 * token sent along (the spec's client sends none on this path): a tempId of another user is refused.
 */
export async function recognise(
  ctx: AppContext,
  call: RecognitionCall,
  caller: number | null,
  waitMs = RECOGNITION_WAIT_MS,
): Promise<
  | { kind: 'done'; data: RecognitionData }
  | { kind: 'pending'; jobId: string; recognitionId: number }
  | { kind: 'failed'; message: string; unavailable: boolean }
> {
  const tempId = call.tempId?.trim() ?? '';
  const file = call.url ? fileOfUrl(call.url) : undefined;
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(tempId) || !file) throw refused();
  const { fileKey } = file;
  const now = ctx.clock();
  // One statement decides and spends: two calls racing with the same tempId cannot both pass.
  const [row] = await ctx.db
    .update(recognitions)
    // An object's place is kept on the row: its file key (the tempId's) derives from the object key.
    .set({ usedAt: now, type: call.type, index: call.index, state: 'running', objectKey: file.objectKey })
    .where(
      and(
        eq(recognitions.tempIdHash, hashOf(tempId)),
        isNull(recognitions.usedAt),
        gt(recognitions.expiresAt, now),
        eq(recognitions.fileKey, fileKey),
        ...(caller !== null ? [eq(recognitions.userId, caller)] : []),
        // A user disabled since the tempId was issued may not spend it.
        sql`exists (select 1 from ${users} where ${users.userId} = ${recognitions.userId} and ${users.status} = 0)`,
      ),
    )
    .returning();
  if (!row) throw refused();
  const job = await ctx.jobs.enqueue(
    RECOGNITION_JOB_KIND,
    { recognitionId: row.id, studyId: row.studyId },
    { ownerId: row.userId, studyId: row.studyId },
  );
  await ctx.db.update(recognitions).set({ jobId: job.jobId }).where(eq(recognitions.id, row.id));
  const ended = await waitForJob(ctx, job.jobId, waitMs);
  if (!ended || ended.state === 'queued' || ended.state === 'running') {
    return { kind: 'pending', jobId: job.jobId, recognitionId: row.id };
  }
  const [after] = await ctx.db.select().from(recognitions).where(eq(recognitions.id, row.id));
  if (ended.state === 'done' && after?.state === 'done') return { kind: 'done', data: answerOf(after) };
  const error = ended.error ?? MSG_FAILED;
  return { kind: 'failed', message: TOLD.has(error) ? error : MSG_FAILED, unavailable: error === MSG_UNAVAILABLE };
}

/** The image's bytes, at most MAX_IMAGE_BYTES, from where its stored value put them (openStoredFile). */
export async function imageBytes(ctx: AppContext, file: StoredFileRef): Promise<Buffer> {
  let stream;
  try {
    ({ stream } = await openStoredFile(ctx, file));
  } catch (err) {
    if (err instanceof AppError) throw new JobFailure(MSG_FAILED);
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_IMAGE_BYTES) {
      stream.destroy();
      throw new JobFailure(MSG_FAILED);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Where a recognition's image is: the object the call's url named (its file key derives from it), else the key's place. */
export function imageOf(row: { fileKey: string; objectKey: string | null }): StoredFileRef {
  const { fileKey, objectKey } = row;
  return objectKey !== null && objectFileKey(objectKey) === fileKey ? objectFile(objectKey) : internalFile(fileKey);
}

/**
 * The recognition job: reads the image's text on the OCR thread, parses the lab-report rows and keeps them on the
 * recognition row (clinical values stay in the study's row; the job's own result holds ids and a count). Re-runnable:
 * a second run writes the same row again.
 */
export async function runRecognitionJob(
  ctx: AppContext,
  job: JobInfo<{ recognitionId: number; studyId: number }>,
  tools: JobTools,
  pool: OcrPool = ocrPool(),
) {
  const { recognitionId, studyId } = job.payload;
  const [row] = await ctx.db
    .select()
    .from(recognitions)
    .where(and(eq(recognitions.id, recognitionId), eq(recognitions.studyId, studyId)));
  if (!row) throw new JobFailure(MSG_FAILED);
  const fail = async (message: string) => {
    await ctx.db
      .update(recognitions)
      .set({ state: 'failed', finishedAt: ctx.clock() })
      .where(eq(recognitions.id, row.id));
    return new JobFailure(message);
  };
  await tools.progress(10, '正在识别');
  let rows: LabRow[];
  let seconds: number;
  try {
    const read = await pool.read(await imageBytes(ctx, imageOf(row)), tools.signal);
    // The rows the OCR process parsed, with their crops; parsed here only from a pool that answers lines alone.
    rows = read.rows ?? parseLabReport(read.lines);
    seconds = read.seconds;
  } catch (err) {
    if (tools.signal.aborted) throw err;
    throw await fail(
      err instanceof OcrUnavailable
        ? MSG_UNAVAILABLE
        : err instanceof OcrRefused
          ? MSG_REFUSED[err.reason]
          : MSG_FAILED,
    );
  }
  if (rows.length === 0) throw await fail(MSG_FAILED);
  await ctx.db
    .update(recognitions)
    .set({ state: 'done', rows, finishedAt: ctx.clock() })
    .where(eq(recognitions.id, row.id));
  return { recognitionId: row.id, rows: rows.length, seconds: Math.round(seconds * 100) / 100 };
}

/**
 * The site of the patient a recognition was made for (the study guard's `config.site`, 分中心); undefined for a
 * recognition not found or made on no patient's form (the service answers).
 */
export async function siteOfRecognition(db: Db, recognitionId: number): Promise<number | null | undefined> {
  const [row] = await db
    .select({ subjectRecordId: recognitions.subjectRecordId })
    .from(recognitions)
    .where(eq(recognitions.id, recognitionId));
  return row?.subjectRecordId ? siteOfRecord(db, row.subjectRecordId) : undefined;
}

/** A finished recognition of the caller's own, by id (the 202 path's follow-up). */
export async function ownRecognition(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number) {
  const [row] = await ctx.db
    .select()
    .from(recognitions)
    .where(
      and(eq(recognitions.id, id), eq(recognitions.studyId, access.studyId), eq(recognitions.userId, user.userId)),
    );
  if (!row || row.usedAt === null) throw AppError.notFound('recognition.not_found', '识别记录不存在');
  if (row.state === 'running' || row.state === 'issued') {
    throw AppError.conflict('recognition.running', '识别仍在进行，请稍后查看');
  }
  if (row.state !== 'done') throw new AppError(422, 'recognition.failed', MSG_FAILED);
  return answerOf(row);
}

/** Links a recognition made on an unsaved record to the record its first save created. */
export async function linkRecord(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  crfDataRecordId: number,
) {
  // The columns checked, not the rows read with their crops (a few hundred KB).
  const [row] = await ctx.db
    .select({ id: recognitions.id, subjectRecordId: recognitions.subjectRecordId, crfId: recognitions.crfId })
    .from(recognitions)
    .where(
      and(eq(recognitions.id, id), eq(recognitions.studyId, access.studyId), eq(recognitions.userId, user.userId)),
    );
  if (!row) throw AppError.notFound('recognition.not_found', '识别记录不存在');
  const [data] = await ctx.db
    .select({ subjectRecordId: crfDataRecords.subjectRecordId, crfId: crfDataRecords.crfId })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.id, crfDataRecordId), eq(crfDataRecords.studyId, access.studyId)));
  if (
    !data ||
    (row.subjectRecordId !== null && data.subjectRecordId !== row.subjectRecordId) ||
    (row.crfId !== null && data.crfId !== row.crfId) ||
    !canViewCrf(access, data.crfId)
  ) {
    throw AppError.forbidden();
  }
  await ctx.db
    .update(recognitions)
    .set({ crfDataRecordId, subjectRecordId: data.subjectRecordId, crfId: data.crfId })
    .where(eq(recognitions.id, row.id));
  return null;
}

/** The source images of a patient's recognised forms, for whoever may view those forms (SDV). */
export async function listSources(
  ctx: AppContext,
  access: StudyAccess,
  query: { subjectRecordId: number; crfId?: number | undefined },
) {
  const viewable = viewableCrfIds(access);
  if (viewable !== null && viewable.length === 0) return [];
  const rows = await ctx.db
    .select({
      recognitionId: recognitions.id,
      fileKey: recognitions.fileKey,
      objectKey: recognitions.objectKey,
      fileName: storedFiles.fileName,
      crfId: recognitions.crfId,
      subjectRecordId: recognitions.subjectRecordId,
      crfDataRecordId: recognitions.crfDataRecordId,
      type: recognitions.type,
      index: recognitions.index,
      createdBy: recognitions.userId,
      createdByName: users.name,
      createdAt: recognitions.createdAt,
    })
    .from(recognitions)
    .innerJoin(
      storedFiles,
      and(eq(storedFiles.fileKey, recognitions.fileKey), eq(storedFiles.studyId, recognitions.studyId)),
    )
    .innerJoin(users, eq(users.userId, recognitions.userId))
    .where(
      and(
        eq(recognitions.studyId, access.studyId),
        eq(recognitions.subjectRecordId, query.subjectRecordId),
        eq(recognitions.state, 'done'),
        ...(query.crfId !== undefined ? [eq(recognitions.crfId, query.crfId)] : []),
        ...(viewable !== null ? [inArray(recognitions.crfId, viewable)] : []),
      ),
    )
    .orderBy(desc(recognitions.createdAt), desc(recognitions.id));
  // An object of the external mode is read at its address (the object read path applies the same viewers' rule).
  return rows.map(({ objectKey, ...row }) =>
    objectKey === null ? row : { ...row, url: `${OBJECT_DOMAIN}${objectKey}` },
  );
}
