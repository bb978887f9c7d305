import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { QUALITY_RULE, type QualityScope } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import {
  crfDataRecords,
  crfStageCrfs,
  followRecordCrfs,
  qualityFindings,
  qualityRuns,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { inCallerSites, withSubDepartments } from '../../shared/patient-site.js';
import { otherFormValuesOf } from '../crf-data/linked-values.service.js';
import { GENERIC_JOB_ERROR, JobFailure, type JobInfo, type JobTools } from '../jobs/job-queue.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';
import {
  DUPLICATE_TEXT,
  evaluateStored,
  findingsOfState,
  visitBeforeEnrolment,
  type RecordFinding,
} from './quality-checks.js';

/**
 * The job of a data quality run ('quality-run'). Records are read and judged in batches of QUALITY_BATCH, each
 * batch's findings written in one statement. After each batch the job rests three times as long as the batch took
 * (`pace`): the event loop and the connection (one, on PGlite) are then free three quarters of the time, so a request
 * of several statements is not made to queue behind the run at each of them. bench/quality-run.ts measured it (the
 * issue's bound: other requests' p99 under 100 ms while a run covers 10,000 patients): resting as long as the work
 * left a p99 of 155 ms, three times as long 67 ms, for a run of 10 s instead of 3.
 * Re-runnable (handlers must be): a run started again drops what it wrote before.
 */

export interface QualityJobPayload {
  runId: number;
  studyId: number;
  scope: QualityScope;
  /** The starter's sites (null: every site): the run covers only the patients the starter sees. */
  siteIds: number[] | null;
}

export interface QualityJobResult {
  runId: number;
  recordsChecked: number;
  findings: number;
}

/** Records per batch: one read, one engine pass each, one insert. */
export const QUALITY_BATCH = 50;

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Rests three times as long as the work since `since` took (at most a second), leaving the server to others. */
const pace = (since: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.min(1_000, 3 * (performance.now() - since))));

type FindingRow = typeof qualityFindings.$inferInsert;

/** The sites the run covers: the scope's site with its sub-departments, within the starter's; null for all. */
async function sitesOf(ctx: AppContext, payload: QualityJobPayload): Promise<number[] | null> {
  if (payload.scope.kind !== 'site') return payload.siteIds;
  const tree = await withSubDepartments(ctx, [payload.scope.deptId]);
  return payload.siteIds ? tree.filter((id) => payload.siteIds!.includes(id)) : tree;
}

async function recordIdsInScope(ctx: AppContext, payload: QualityJobPayload, sites: number[] | null) {
  const rows = await ctx.db
    .select({ id: crfDataRecords.id })
    .from(crfDataRecords)
    .innerJoin(
      subjectRecords,
      and(eq(subjectRecords.id, crfDataRecords.subjectRecordId), isNull(subjectRecords.deletedAt)),
    )
    .innerJoin(subjects, and(eq(subjects.id, subjectRecords.subjectId), isNull(subjects.deletedAt)))
    .where(
      and(
        eq(crfDataRecords.studyId, payload.studyId),
        isNull(crfDataRecords.deletedAt),
        payload.scope.kind === 'form' ? eq(crfDataRecords.crfId, payload.scope.crfId) : undefined,
        inCallerSites({ siteIds: sites }, subjects.deptId),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
  return rows.map((r) => r.id);
}

/** Visit forms for the cross-form rule: the study's repeatable forms (a visit's form is filled again and again). */
async function visitFormsOf(ctx: AppContext, studyId: number) {
  const rows = await ctx.db
    .selectDistinct({ crfId: crfStageCrfs.crfId })
    .from(crfStageCrfs)
    .where(and(eq(crfStageCrfs.studyId, studyId), eq(crfStageCrfs.repeat, 0)));
  return new Set(rows.map((r) => r.crfId));
}

/** Judges one batch of records: the engine's rules on each, and the cross-form date rule on visit forms' records. */
async function checkBatch(
  ctx: AppContext,
  payload: QualityJobPayload,
  ids: number[],
  timeZone: string,
  visitForms: ReadonlySet<number>,
): Promise<FindingRow[]> {
  const records = await ctx.db
    .select({
      id: crfDataRecords.id,
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfId: crfDataRecords.crfId,
      crfVersion: crfDataRecords.crfVersion,
      values: crfDataRecords.values,
      missing: crfDataRecords.missing,
      labRanges: crfDataRecords.labRanges,
      updatedAt: crfDataRecords.updatedAt,
      gender: subjects.gender,
      deptId: subjects.deptId,
      enrolledAt: subjects.createdAt,
    })
    .from(crfDataRecords)
    .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(and(eq(crfDataRecords.studyId, payload.studyId), inArray(crfDataRecords.id, ids)))
    .orderBy(asc(crfDataRecords.id));
  const definitions = await definitionsOf(
    ctx.db,
    records.map((r) => ({ crfId: r.crfId, version: r.crfVersion })),
  );
  // The other forms' values each definition reads, for the batch's patients in one statement per version.
  const otherForms = new Map<string, Awaited<ReturnType<typeof otherFormValuesOf>>>();
  for (const [key, definition] of definitions) {
    const patients = records.filter((r) => versionKey(r.crfId, r.crfVersion) === key).map((r) => r.subjectRecordId);
    otherForms.set(key, await otherFormValuesOf(ctx.db, payload.studyId, patients, definition));
  }
  const linked = new Set(
    (
      await ctx.db
        .select({ id: followRecordCrfs.crfDataRecordId })
        .from(followRecordCrfs)
        .where(and(eq(followRecordCrfs.studyId, payload.studyId), inArray(followRecordCrfs.crfDataRecordId, ids)))
    ).map((r) => r.id),
  );
  const out: FindingRow[] = [];
  for (const record of records) {
    const key = versionKey(record.crfId, record.crfVersion);
    const definition = definitions.get(key);
    if (!definition) continue;
    const stored = {
      crfId: record.crfId,
      values: record.values,
      missing: record.missing ?? {},
      labRanges: record.labRanges,
      updatedAt: record.updatedAt,
      gender: record.gender,
    };
    const forms = (otherForms.get(key)?.get(record.subjectRecordId) ?? {}) as Record<string, Record<string, unknown>>;
    const found: RecordFinding[] = findingsOfState(
      definition,
      stored,
      evaluateStored(definition, stored, timeZone, forms),
    );
    if (visitForms.has(record.crfId) || linked.has(record.id)) {
      const enrolDate = record.enrolledAt.toLocaleDateString('sv-SE', { timeZone });
      found.push(...visitBeforeEnrolment(definition, stored, enrolDate));
    }
    for (const f of found) {
      out.push({
        runId: payload.runId,
        studyId: payload.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        deptId: record.deptId,
        crfId: record.crfId,
        itemName: f.itemName.slice(0, 100),
        ruleKey: f.ruleKey.slice(0, 120),
        ruleText: f.ruleText,
      });
    }
  }
  return out;
}

/**
 * Duplicate patients: live patients of the study (within the run's sites) with the same name and birth date, one
 * finding per patient of each group. The same 身份证号 cannot occur twice among live patients (the unique index
 * subjects_id_number_live refuses it), so the ID number needs no rule here.
 */
async function duplicateFindings(ctx: AppContext, payload: QualityJobPayload, sites: number[] | null) {
  const inSites =
    sites === null ? sql`true` : sites.length === 0 ? sql`false` : sql`s.dept_id in (${sql.join(sites, sql`, `)})`;
  const rows = await queryRows<{ subject_record_id: number; dept_id: number | null }>(
    ctx.db,
    sql`with live as (
        select s.id, s.subject_name, s.birth, s.dept_id, sr.id as subject_record_id
        from subjects s join subject_records sr on sr.subject_id = s.id and sr.deleted_at is null
        where s.study_id = ${payload.studyId} and s.deleted_at is null and s.birth is not null and ${inSites}
      )
      select l.subject_record_id, l.dept_id from live l
      where (select count(*) from live o where o.subject_name = l.subject_name and o.birth = l.birth) > 1
      order by l.subject_record_id`,
  );
  return rows.map((r): FindingRow => ({
    runId: payload.runId,
    studyId: payload.studyId,
    subjectRecordId: Number(r.subject_record_id),
    crfDataRecordId: null,
    deptId: r.dept_id === null ? null : Number(r.dept_id),
    crfId: null,
    itemName: null,
    ruleKey: QUALITY_RULE.duplicate,
    ruleText: DUPLICATE_TEXT,
  }));
}

async function setRun(ctx: AppContext, runId: number, set: Partial<typeof qualityRuns.$inferInsert>) {
  await ctx.db.update(qualityRuns).set(set).where(eq(qualityRuns.id, runId));
}

export async function runQualityJob(
  ctx: AppContext,
  job: JobInfo<QualityJobPayload>,
  tools: JobTools,
): Promise<QualityJobResult> {
  const payload = job.payload;
  const [study] = await ctx.db
    .select({ timeZone: studies.timeZone })
    .from(studies)
    .where(eq(studies.studyId, payload.studyId));
  if (!study) throw new JobFailure('项目不存在');
  await setRun(ctx, payload.runId, { state: 'running', error: null, finishedAt: null });
  try {
    await ctx.db.delete(qualityFindings).where(eq(qualityFindings.runId, payload.runId));
    const sites = await sitesOf(ctx, payload);
    const ids = await recordIdsInScope(ctx, payload, sites);
    const visitForms = await visitFormsOf(ctx, payload.studyId);
    await tools.progress(0, `共 ${ids.length} 条表单记录待核查`);
    let findings = 0;
    for (let at = 0; at < ids.length; at += QUALITY_BATCH) {
      if (tools.signal.aborted) break;
      const started = performance.now();
      const batch = ids.slice(at, at + QUALITY_BATCH);
      const rows = await checkBatch(ctx, payload, batch, study.timeZone, visitForms);
      if (rows.length > 0) await ctx.db.insert(qualityFindings).values(rows);
      findings += rows.length;
      const done = at + batch.length;
      await tools.progress((done / Math.max(ids.length, 1)) * 95, `已核查 ${done}/${ids.length}`);
      await pace(started);
    }
    if (tools.signal.aborted) {
      // A cancel ends the run; a shutdown puts the job back in the queue and the run starts again.
      if (tools.signal.reason === 'cancelled') {
        await setRun(ctx, payload.runId, { state: 'failed', error: '核查已取消', finishedAt: ctx.clock() });
      }
      return { runId: payload.runId, recordsChecked: 0, findings: 0 };
    }
    // Duplicates are about patients, not a form's records: a run of one form leaves them out.
    if (payload.scope.kind !== 'form') {
      await breathe();
      const rows = await duplicateFindings(ctx, payload, sites);
      if (rows.length > 0) await ctx.db.insert(qualityFindings).values(rows);
      findings += rows.length;
    }
    const counted = await ctx.db
      .select({ ruleKey: qualityFindings.ruleKey, n: sql<number>`count(*)::int` })
      .from(qualityFindings)
      .where(eq(qualityFindings.runId, payload.runId))
      .groupBy(qualityFindings.ruleKey);
    await setRun(ctx, payload.runId, {
      state: 'done',
      recordsChecked: ids.length,
      findingsCount: findings,
      counts: Object.fromEntries(counted.map((c) => [c.ruleKey, Number(c.n)])),
      finishedAt: ctx.clock(),
    });
    return { runId: payload.runId, recordsChecked: ids.length, findings };
  } catch (err) {
    if (!tools.signal.aborted) {
      // The owner's words when they were written for them; a driver's message may quote a value.
      const error = err instanceof JobFailure || err instanceof AppError ? err.message : GENERIC_JOB_ERROR;
      await setRun(ctx, payload.runId, { state: 'failed', error, finishedAt: ctx.clock() });
    }
    throw err;
  }
}
