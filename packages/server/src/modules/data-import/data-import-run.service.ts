/** The import run: writing a plan in batches of patients, and the job that plans a stored workbook and writes it. */
import { eq } from 'drizzle-orm';
import { DATA_IMPORT_REASON, type ImportIssue, type ImportMode, type ImportResult } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { RecordedEvent } from '../../shared/domain-events.js';
import type { Db } from '../../db/client.js';
import { studies, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { JobFailure, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import type { WorkbookPool } from './data-import.pool.js';
import { BatchRefused, writeFormBatch, type Refusal, type WriteCounts } from '../crf-data/form-write-batch.js';
import { patientsOf, planErrors, planImport, type ImportPlan, type Target } from './data-import.service.js';

/** The audit reason of every value a file brings in: 数据导入 and the file's SHA-256 (which file, provably). */
export const importReason = (sha256: string) => `${DATA_IMPORT_REASON}（文件SHA-256：${sha256}）`;

/** Lets other requests run between pieces of a long plan on this thread. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ImportRunOptions {
  mode: ImportMode;
  submitType: 0 | 1;
  sha256: string;
  /** Called after each batch of patients (done, total); a job reports it as progress. */
  progress?: (done: number, total: number) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * How many patients one transaction writes. The size adapts to how long the last batch took, aiming at
 * `targetMs` a batch (on the embedded database a transaction holds the only connection, so its length is what
 * another request may wait; on PostgreSQL a short transaction holds its record locks briefly), between 1 and
 * `patients`, and never more than about `values` audit rows (a wide form makes smaller batches). It starts at
 * `first`. Any size is a few statements.
 */
export const IMPORT_BATCH = { patients: 100, values: 1_500, targetMs: 50, first: 10 };

/** How long the import waits for a batch's reactions before it goes on regardless (a subscriber may be failing). */
const REACTIONS_WAIT_MS = 10_000;

/** Hands out the next batch of patients: `size` of them, fewer when their audit rows would pass `limits.values`. */
function batcher<T extends { targets: Target[] }>(patients: readonly T[], limits = IMPORT_BATCH) {
  let at = 0;
  let size = Math.max(1, Math.min(limits.first, limits.patients));
  return {
    next(): T[] {
      const batch: T[] = [];
      let weight = 0;
      while (at < patients.length && batch.length < size) {
        const w = patients[at]!.targets.reduce((n, t) => n + t.changed.length + 2, 0);
        if (batch.length > 0 && weight + w > limits.values) break;
        batch.push(patients[at]!);
        weight += w;
        at += 1;
      }
      return batch;
    },
    /** The last batch of `count` patients took `ms`: the next one is sized for `targetMs` (at most doubling). */
    took(count: number, ms: number) {
      const ideal = Math.round((count * limits.targetMs) / Math.max(ms, 1));
      size = Math.max(1, Math.min(limits.patients, count * 2, ideal));
    },
  };
}

/**
 * Writes a plan through the one write path (crf-data/form-write.ts, its batch): the engine judges every record
 * again at write time and its verdict is final, the reason rules for submitted forms hold (the reason is
 * 数据导入 with the file's hash), each changed value gets its audit row, verification marks and signatures are
 * voided and the domain events are recorded. Records are written set-based, a batch of patients per
 * statement (the one write path's batch, crf-data/form-write-batch.ts). `file`: one transaction, nothing written unless every row is valid.
 * `patient`: one transaction per batch of patients, and still all or nothing per patient: a patient with any
 * error in the plan is left out, and a patient the save refuses at write time (a record changed or deleted
 * since the file was planned) rolls the batch back, which is then written again without that patient. A
 * sheet-wide error (unknown sheet or column, a form the user may not edit) stops both: the file needs fixing.
 */
export async function applyPlan(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  plan: ImportPlan,
  options: ImportRunOptions,
): Promise<ImportResult> {
  const errors = planErrors(plan);
  const byPatient = patientsOf(plan);
  const result: ImportResult = {
    sha256: options.sha256,
    mode: options.mode,
    submitType: options.submitType,
    importedPatients: 0,
    skippedPatients: 0,
    createdRecords: 0,
    updatedRecords: 0,
    values: 0,
    errors,
  };
  if (plan.sheetErrors.length > 0 || (options.mode === 'file' && errors.length > 0)) {
    result.skippedPatients = byPatient.size;
    return result;
  }
  const reason = importReason(options.sha256);
  const submit = options.submitType === 1;
  // Records the plan found nothing to change in are not written (and not audited).
  const writes = (targets: readonly Target[]) =>
    targets.filter((t) => t.changed.length > 0 || t.submits || !t.existing);
  const write = (tx: Db, patients: ReadonlyArray<{ targets: Target[] }>) =>
    writeFormBatch(
      tx,
      ctx,
      { kind: 'staff', user, access },
      patients.map((p) => writes(p.targets)),
      { submit, reason, now: ctx.clock() },
    );
  const add = (n: WriteCounts, patients: number) => {
    result.createdRecords += n.created;
    result.updatedRecords += n.updated;
    result.values += n.values;
    result.importedPatients += patients;
  };
  const refusal = ({ target, cause }: Refusal): ImportIssue => {
    const issues = (cause.data as { errors?: Array<{ itemName: string; message: string }> } | null)?.errors ?? [];
    const detail = issues.map((i) => `${i.itemName}：${i.message}`).join('；');
    const row = target as Target;
    return {
      sheet: row.sheet,
      row: row.row,
      column: null,
      message: `${cause.message}${detail ? `（${detail}）` : ''}`,
    };
  };

  const valid = [...byPatient.values()].filter((p) => p.valid);
  const batches = batcher(valid);
  if (options.mode === 'file') {
    try {
      const n = await ctx.db.transaction(async (tx) => {
        const sum: WriteCounts = { created: 0, updated: 0, values: 0 };
        for (let batch = batches.next(); batch.length > 0; batch = batches.next()) {
          await breathe();
          const started = performance.now();
          const part = await write(tx, batch);
          batches.took(batch.length, performance.now() - started);
          sum.created += part.created;
          sum.updated += part.updated;
          sum.values += part.values;
        }
        return sum;
      });
      add(n, byPatient.size);
    } catch (err) {
      if (!(err instanceof BatchRefused)) throw err;
      result.errors.push(...err.refusals.map(refusal));
      result.skippedPatients = byPatient.size;
    }
    await options.progress?.(1, 1);
    return result;
  }
  result.skippedPatients = byPatient.size - valid.length;
  let done = byPatient.size - valid.length;
  let reactions: RecordedEvent | undefined;
  for (let batch = batches.next(); batch.length > 0; batch = batches.next()) {
    if (options.signal?.aborted) break;
    // The previous batch's reactions (system queries, follow-up, realtime: a transaction and an engine run per
    // record, after commit) first: the import never runs more than a batch ahead of them, so that it and they do
    // not pile up on the server's cores together and other requests keep being served promptly.
    if (reactions) await ctx.events.settled(reactions, REACTIONS_WAIT_MS);
    let members = batch;
    while (members.length > 0) {
      // Between transactions other requests get the (single, on PGlite) connection: the next transaction
      // would otherwise take it again before their queries are queued.
      await breathe();
      try {
        const started = performance.now();
        const n = await ctx.db.transaction((tx) => write(tx, members));
        batches.took(members.length, performance.now() - started);
        add(n, members.length);
        reactions = n.lastEvent;
        break;
      } catch (err) {
        if (!(err instanceof BatchRefused)) throw err;
        const refused = new Set(err.refusals.map((r) => r.target.subjectRecordId));
        result.errors.push(...err.refusals.map(refusal));
        result.skippedPatients += refused.size;
        members = members.filter((p) => !refused.has(p.targets[0]!.subjectRecordId));
      }
    }
    done += batch.length;
    await options.progress?.(done, byPatient.size);
  }
  return result;
}

export const IMPORT_JOB_KIND = 'data.import';

/** A job's payload: ids and options only (the workbook waits in the file storage under data-imports/). */
export interface ImportJobPayload {
  studyId: number;
  fileKey: string;
  fileName: string;
  sha256: string;
  mode: ImportMode;
  submitType: 0 | 1;
  /** The owner's system permissions when asked (study:manage decides access like for a request). */
  systemPermissions: string[];
}

export const importFileKey = (fileKey: string) => `data-imports/${fileKey}`;

export async function studyNameOf(ctx: AppContext, studyId: number) {
  const [study] = await ctx.db.select({ name: studies.studyName }).from(studies).where(eq(studies.studyId, studyId));
  return study?.name ?? '项目';
}

/**
 * The import job: re-runnable, as every handler must be. A re-run plans the file again against the data as it
 * now stands, so what a first run wrote reads as unchanged and is not written twice.
 */
export async function runImportJob(
  ctx: AppContext,
  pool: WorkbookPool,
  job: JobInfo<ImportJobPayload>,
  tools: JobTools,
  accessOf: (userId: number, systemPermissions: string[], studyId: number) => Promise<StudyAccess | null>,
): Promise<ImportResult> {
  const p = job.payload;
  const key = importFileKey(p.fileKey);
  const stream = await ctx.files.get(key);
  if (!stream) throw new JobFailure('导入文件已不存在，请重新上传');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  try {
    const access = await accessOf(job.ownerId, p.systemPermissions, p.studyId);
    if (!access) throw new JobFailure('您已不是该项目成员，无法导入');
    const [owner] = await ctx.db.select().from(users).where(eq(users.userId, job.ownerId));
    if (!owner) throw new JobFailure('用户不存在');
    const user: CurrentUser = {
      userId: owner.userId,
      userName: owner.userName,
      name: owner.name,
      deptId: owner.deptId,
      sessionId: '',
      admin: false,
      permissions: p.systemPermissions,
      setPasswordMust: false,
    };
    await tools.progress(2, '正在读取文件');
    const sheets = await pool.read(Buffer.concat(chunks));
    await tools.progress(5, '正在检查数据');
    const plan = await planImport(ctx, access, sheets, { submit: p.submitType === 1, details: false });
    await tools.progress(20, '正在导入');
    return await applyPlan(ctx, user, access, plan, {
      mode: p.mode,
      submitType: p.submitType,
      sha256: p.sha256,
      signal: tools.signal,
      progress: (done, total) => tools.progress(20 + Math.floor((done / total) * 79), `正在导入 ${done}/${total}`),
    });
  } catch (err) {
    if (err instanceof AppError) throw new JobFailure(err.message);
    throw err;
  } finally {
    // A stop for shutdown runs the job again: its file must stay until the job has ended.
    if (!tools.signal.aborted) await ctx.files.delete(key);
  }
}
