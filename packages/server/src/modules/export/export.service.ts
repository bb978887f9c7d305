import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, count, desc, eq } from 'drizzle-orm';
import {
  CODES_ONLY_FORMATS,
  exportFileName,
  hasPermission,
  type ExportOptions,
  type ExportV2Body,
  type ExportV3Body,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfs, exportLogs, studies } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { JobFailure, type JobInfo, type JobTools, type JobView } from '../jobs/job-queue.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { search } from '../search/search.service.js';
import {
  countPatients,
  dateShifter,
  exportPlan,
  patientBatches,
  type PatientScope,
  type ResolvedScope,
} from './export-source.js';
import { redcapWriter } from './export-redcap.js';
import { ExportCancelled, type WriteContext } from './export-writer-common.js';
import { writeExport } from './export-writers.js';

export const EXPORT_JOB_KIND = 'data.export';

/** v2: the patients of a search; v3: the whole study. Both with the same options and the same job. */
export type ExportApi = 'v2' | 'v3';

export interface ExportJobPayload {
  studyId: number;
  api: ExportApi;
  options: ExportOptions;
  scope: ResolvedScope;
  /** How the patients were chosen: by a search (its ids resolved when asked), a list, or the whole study. */
  chosenBy: PatientScope['kind'];
  userName: string;
  /** The owner's system permissions when asking (study:manage); the study role is read again when the job runs. */
  systemPermissions: string[];
}

/**
 * Who reads a study's export log: its managers, i.e. `study:manage` holders and members who manage the study's
 * staff (system permission study:user). Everyone else sees the exports they made themselves.
 */
export function managesExports(user: Pick<CurrentUser, 'permissions'>, access: StudyAccess): boolean {
  return access.all || hasPermission(user.permissions, 'study:user');
}

/** The checks made when an export is asked for, and again when its job runs (rights may change in between). */
async function checkRequest(ctx: AppContext, access: StudyAccess, options: ExportOptions) {
  if (options.identifiers && !seesIdentifiers(access)) {
    throw AppError.forbidden('export.identifier_forbidden', '无权导出患者身份信息（需要“查看患者身份信息”权限）');
  }
  if (options.identifiers && options.dateShiftDays !== null) {
    throw AppError.badRequest('export.invalid', '日期偏移用于去标识化导出，不能同时导出患者身份信息');
  }
  if (options.crfIds.length > 0) {
    const known = await ctx.db.select({ id: crfs.id }).from(crfs).where(eq(crfs.studyId, access.studyId));
    const ids = new Set(known.map((k) => k.id));
    if (options.crfIds.some((id) => !ids.has(id))) throw AppError.badRequest('export.invalid', '所选表单不存在');
    if (options.crfIds.some((id) => !canViewCrf(access, id))) {
      throw AppError.forbidden('export.crf_forbidden', '无权导出该表单的数据（没有该表单的查看权限）');
    }
  }
}

function scopeOf(api: ExportApi, body: ExportV2Body | ExportV3Body): PatientScope {
  if (api === 'v3') return { kind: 'study' };
  const v2 = body as ExportV2Body;
  if (v2.subjectRecordIds) return { kind: 'list', subjectRecordIds: v2.subjectRecordIds };
  if (v2.conditions) return { kind: 'search', conditions: v2.conditions };
  throw AppError.badRequest('export.invalid', '请先检索，再导出检索结果中的患者（conditions 或 subjectRecordIds）');
}

const SEARCH_PAGE = 1000;

/**
 * The patients of a search, by the retrieval's own search (the same compiled conditions, the same view and
 * identifier rules), read a page of ids at a time; the export then reads them in key order.
 */
async function resolveScope(ctx: AppContext, access: StudyAccess, scope: PatientScope): Promise<ResolvedScope> {
  if (scope.kind !== 'search') return scope;
  const ids: number[] = [];
  for (let pageNum = 1; ; pageNum += 1) {
    const page = await search(
      ctx,
      access,
      { conditions: scope.conditions, columns: [] },
      { pageNum, pageSize: SEARCH_PAGE, limit: SEARCH_PAGE, offset: (pageNum - 1) * SEARCH_PAGE },
    );
    ids.push(...page.list.map((p) => p.subjectRecordId));
    if (page.list.length < SEARCH_PAGE) break;
  }
  return { kind: 'list', subjectRecordIds: ids };
}

function optionsOf(body: ExportV2Body | ExportV3Body): ExportOptions {
  const { format, crfIds, stageIds, states, labels, identifiers, dateShiftDays } = body;
  return { format, crfIds, stageIds, states, labels, identifiers, dateShiftDays };
}

/** The study's name, and whether it is in 测试 (its exports are test data, marked as such). */
async function studyOf(ctx: AppContext, studyId: number): Promise<{ name: string; test: boolean }> {
  const [study] = await ctx.db
    .select({ name: studies.studyName, mode: studies.mode })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  return { name: study?.name ?? '', test: study?.mode === 'test' };
}

async function ensureLog(
  ctx: AppContext,
  jobId: string,
  ownerId: number,
  payload: ExportJobPayload,
  at: Date,
  test: boolean,
) {
  const { scope } = payload;
  await ctx.db
    .insert(exportLogs)
    .values({
      studyId: payload.studyId,
      jobId,
      userId: ownerId,
      userName: payload.userName,
      api: payload.api,
      format: payload.options.format,
      test,
      // The options as asked, and the scope by its size: ids and switches, no clinical values.
      options: {
        ...payload.options,
        scope:
          scope.kind === 'list'
            ? { kind: payload.chosenBy, patients: scope.subjectRecordIds.length }
            : { kind: 'study' },
      },
      createdAt: at,
    })
    .onConflictDoNothing({ target: [exportLogs.studyId, exportLogs.jobId] });
}

/** POST /api/v2|v3/business/search/export: checks, enqueues the export job and writes its log row. */
export async function requestExport(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  api: ExportApi,
  body: ExportV2Body | ExportV3Body,
): Promise<JobView> {
  const options = optionsOf(body);
  await checkRequest(ctx, access, options);
  const asked = scopeOf(api, body);
  // A search is run now, under the caller's search rules: the job carries patient ids, never the conditions
  // (which can hold clinical values or an identifier searched for).
  const scope = await resolveScope(ctx, access, asked);
  const payload: ExportJobPayload = {
    studyId: access.studyId,
    api,
    options,
    scope,
    chosenBy: asked.kind,
    userName: user.name || user.userName,
    systemPermissions: user.permissions,
  };
  const job = await ctx.jobs.enqueue(EXPORT_JOB_KIND, payload, { ownerId: user.userId, studyId: access.studyId });
  const { test } = await studyOf(ctx, access.studyId);
  await ensureLog(ctx, job.jobId, user.userId, payload, ctx.clock(), test);
  return job;
}

/** The job's owner as the REDCap mapping reads a caller (it looks at the study access only). */
const ownerAsUser = (userId: number, payload: ExportJobPayload): CurrentUser => ({
  userId,
  userName: payload.userName,
  name: payload.userName,
  deptId: null,
  sessionId: '',
  admin: false,
  permissions: payload.systemPermissions,
  setPasswordMust: false,
});

async function fileHash(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

async function finishLog(
  ctx: AppContext,
  payload: ExportJobPayload,
  jobId: string,
  values: Partial<typeof exportLogs.$inferInsert>,
) {
  await ctx.db
    .update(exportLogs)
    .set({ ...values, finishedAt: ctx.clock() })
    .where(and(eq(exportLogs.studyId, payload.studyId), eq(exportLogs.jobId, jobId)));
}

/**
 * The export job. Re-runnable: a run writes into a temporary folder of its own, replaces the job's one result
 * file and completes the one log row of the job; nothing is appended.
 */
export async function runExport(
  ctx: AppContext,
  job: JobInfo<ExportJobPayload>,
  tools: JobTools,
  accessOf: (userId: number, systemPermissions: string[], studyId: number) => Promise<StudyAccess | null>,
) {
  const payload = job.payload;
  // The study's mode when the job runs decides (a go-live in between purged the test patients).
  const study = await studyOf(ctx, payload.studyId);
  await ensureLog(ctx, job.jobId, job.ownerId, payload, ctx.clock(), study.test);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'edc-export-'));
  try {
    const access = await accessOf(job.ownerId, payload.systemPermissions, payload.studyId);
    if (!access) throw new JobFailure('您已不是该项目成员，无法导出');
    try {
      await checkRequest(ctx, access, payload.options);
    } catch (e) {
      throw new JobFailure(e instanceof AppError ? e.message : '导出条件不再有效');
    }
    const scope = payload.scope;
    const plan = await exportPlan(ctx, access, payload.options, study.test, scope);
    const total = await countPatients(ctx, plan, scope);
    const shift = dateShifter(payload.options.dateShiftDays);
    let last = -1;
    const now = ctx.clock();
    const wctx: WriteContext = {
      plan,
      studyName: study.name,
      test: study.test,
      now,
      totalPatients: total,
      batches: (crfIds) => patientBatches(ctx, plan, scope, crfIds, shift, (stored) => ctx.fieldCrypto.decrypt(stored)),
      progress: async (fraction, message) => {
        const percent = Math.min(95, Math.floor(fraction * 95));
        if (percent === last) return;
        last = percent;
        await tools.progress(percent, message);
      },
      signal: tools.signal,
      dir,
      redcap: redcapWriter(ctx, ownerAsUser(job.ownerId, payload), access),
    };
    await tools.progress(0, '正在准备导出');
    const written = await writeExport(payload.options.format, wctx);
    // Cancelled while the last batch was written: the file is not kept, nor logged as an export.
    if (tools.signal.aborted) throw new ExportCancelled();
    const stat = await fs.promises.stat(written.path);
    const sha256 = await fileHash(written.path);
    const stamp = now.toLocaleString('sv-SE', { timeZone: access.timeZone }).replace(/[-: ]/g, '').slice(0, 14);
    const fileName = exportFileName(study.name, payload.options.format, stamp, study.test);
    await tools.saveResultFile({ fileName, contentType: written.contentType, data: fs.createReadStream(written.path) });
    await finishLog(ctx, payload, job.jobId, {
      state: 'done',
      test: study.test,
      patientCount: total,
      rowCount: written.rows,
      fileName,
      fileSize: stat.size,
      sha256,
    });
    // Labels asked of a format that writes codes only: the file has codes, and the job says so.
    const codesOnly = payload.options.labels ? CODES_ONLY_FORMATS[payload.options.format] : undefined;
    await tools.progress(100, codesOnly ? `导出完成（${codesOnly}）` : '导出完成');
    return { patients: total, rows: written.rows, sha256 };
  } catch (e) {
    const cancelled = e instanceof ExportCancelled || tools.signal.aborted;
    await finishLog(ctx, payload, job.jobId, { state: cancelled ? 'cancelled' : 'failed' }).catch(() => undefined);
    if (cancelled) return { cancelled: true };
    throw e;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** GET /api/business/search/export/log: the study's exports, newest first (managers: all; others: their own). */
export async function listExportLog(ctx: AppContext, user: CurrentUser, access: StudyAccess, page: PageRequest) {
  const where = and(
    eq(exportLogs.studyId, access.studyId),
    managesExports(user, access) ? undefined : eq(exportLogs.userId, user.userId),
  );
  const { list: rows, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(exportLogs).where(where),
    ctx.db.select().from(exportLogs).where(where).orderBy(desc(exportLogs.createdAt), desc(exportLogs.id)).$dynamic(),
    page,
  );
  return {
    total,
    pageNum: page.pageNum,
    pageSize: page.pageSize,
    list: rows.map((r) => ({
      id: r.id,
      jobId: r.jobId,
      userId: r.userId,
      userName: r.userName,
      api: r.api,
      format: r.format,
      test: r.test,
      options: r.options,
      state: r.state,
      patientCount: r.patientCount,
      rowCount: r.rowCount,
      fileName: r.fileName,
      fileSize: r.fileSize,
      sha256: r.sha256,
      createTime: r.createdAt,
      finishTime: r.finishedAt,
    })),
  };
}

/** Waits (at most `ms`) for a job to end: this process's progress events, and a slow poll for other servers'. */
export function waitForJob(ctx: AppContext, jobId: string, ms: number): Promise<JobView | null> {
  return new Promise((resolve) => {
    const ended = (j: JobView | null) =>
      j !== null && (j.state === 'done' || j.state === 'failed' || j.state === 'cancelled');
    let settled = false;
    const finish = (j: JobView | null) => {
      if (settled) return;
      settled = true;
      off();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(j);
    };
    const off = ctx.jobs.onProgress((j) => {
      if (j.jobId === jobId && ended(j)) void ctx.jobs.get(jobId).then(finish);
    });
    const poll = setInterval(() => {
      void ctx.jobs.get(jobId).then((j) => (ended(j) ? finish(j) : undefined));
    }, 1000);
    const timer = setTimeout(() => void ctx.jobs.get(jobId).then(finish), ms);
    void ctx.jobs.get(jobId).then((j) => (ended(j) ? finish(j) : undefined));
  });
}
