import { and, asc, count, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import {
  buttonKey,
  QUALITY_JOB_KIND,
  QUALITY_MSG,
  qualityRuleText,
  type QualityDashboard,
  type QualityFinding,
  type QualityFindingsQuery,
  type QualityQueriesBody,
  type QualityQueriesResult,
  type QualityRun,
  type QualityRunBody,
  type QualityRunState,
  type QualityScope,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import {
  crfDataRecords,
  crfs,
  departments,
  jobs,
  qualityFindings,
  qualityRuns,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { hasStudyPermission, viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { openDoubt } from '../doubt/doubt-actions.service.js';
import { definitionsOf, nodesOf, versionKey } from '../study/crf-definitions.js';
import type { QualityJobPayload } from './quality-run.job.js';

/**
 * 数据核查 (issue 37): starting a run (the work is the job's, quality-run.job.ts), reading runs and findings under the
 * caller's site scope, and raising one query per finding through the query service (doubt-actions.service.ts), so a
 * query raised here is the same query, with the same lock gate and audit rows, as one raised on the form.
 */

type RunRow = typeof qualityRuns.$inferSelect;

export const notFoundRun = () => AppError.notFound('quality.run_not_found', QUALITY_MSG.runNotFound);

/** Checks the scope against the study and the caller's sites, writes the run and queues its job. */
export async function startRun(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: QualityRunBody) {
  const scope = body.scope as QualityScope;
  if (scope.kind === 'site') {
    if (access.siteIds && !access.siteIds.includes(scope.deptId)) {
      throw AppError.forbidden('quality.site_outside', QUALITY_MSG.siteOutside);
    }
    const [dept] = await ctx.db
      .select({ id: departments.deptId })
      .from(departments)
      .where(eq(departments.deptId, scope.deptId));
    if (!dept) throw AppError.badRequest('quality.site_not_found', QUALITY_MSG.siteOutside);
  }
  if (scope.kind === 'form') {
    const [crf] = await ctx.db
      .select({ id: crfs.id })
      .from(crfs)
      .where(and(eq(crfs.id, scope.crfId), eq(crfs.studyId, access.studyId)));
    if (!crf) throw AppError.badRequest('quality.form_not_found', QUALITY_MSG.formNotFound);
  }
  const [run] = await ctx.db
    .insert(qualityRuns)
    .values({ studyId: access.studyId, scope, state: 'queued', startedBy: user.userId, createdAt: ctx.clock() })
    .returning({ id: qualityRuns.id });
  const payload: QualityJobPayload = {
    runId: run!.id,
    studyId: access.studyId,
    scope,
    // The starter's sites: a site-scoped member's run covers only their patients.
    siteIds: access.siteIds ? [...access.siteIds] : null,
  };
  const job = await ctx.jobs.enqueue(QUALITY_JOB_KIND, payload, { ownerId: user.userId, studyId: access.studyId });
  await ctx.db.update(qualityRuns).set({ jobId: job.jobId }).where(eq(qualityRuns.id, run!.id));
  return { runId: run!.id, jobId: job.jobId };
}

async function runOf(ctx: AppContext, access: StudyAccess, runId: number): Promise<RunRow> {
  const [run] = await ctx.db
    .select()
    .from(qualityRuns)
    .where(and(eq(qualityRuns.id, runId), eq(qualityRuns.studyId, access.studyId)));
  if (!run) throw notFoundRun();
  return run;
}

/** The findings the caller sees: their sites' patients (the patient's site now, as every patient list reads it). */
const visibleFindings = (access: StudyAccess, runIds: readonly number[]) =>
  and(
    eq(qualityFindings.studyId, access.studyId),
    inArray(qualityFindings.runId, runIds.length > 0 ? [...runIds] : [-1]),
    recordInCallerSites(access, qualityFindings.subjectRecordId),
    findingOfViewableForm(access),
  );

/** A finding on a form shows the form's values (its item, its rule's text): only to those who may view the form. */
function findingOfViewableForm(access: StudyAccess) {
  const viewable = viewableCrfIds(access);
  if (viewable === null) return undefined;
  return or(isNull(qualityFindings.crfId), inArray(qualityFindings.crfId, viewable.length > 0 ? viewable : [-1]));
}

async function ruleCounts(ctx: AppContext, access: StudyAccess, runId: number) {
  const rows = await ctx.db
    .select({
      ruleKey: qualityFindings.ruleKey,
      text: sql<string>`min(${qualityFindings.ruleText})`,
      count: sql<number>`count(*)::int`,
      open: sql<number>`(count(*) filter (where ${qualityFindings.status} = 'open'))::int`,
    })
    .from(qualityFindings)
    .where(visibleFindings(access, [runId]))
    .groupBy(qualityFindings.ruleKey)
    .orderBy(desc(sql`count(*)`), asc(qualityFindings.ruleKey));
  return rows.map((r) => ({
    ruleKey: r.ruleKey,
    ruleText: qualityRuleText(r.ruleKey, r.text),
    count: Number(r.count),
    open: Number(r.open),
  }));
}

const runColumns = {
  run: qualityRuns,
  progress: jobs.progress,
  startedBy: users.name,
};

function runOut(r: { run: RunRow; progress: number | null; startedBy: string | null }, findingsCount: number) {
  const state = r.run.state as QualityRunState;
  return {
    runId: r.run.id,
    studyId: r.run.studyId,
    scope: r.run.scope as QualityScope,
    state,
    jobId: r.run.jobId,
    progress: state === 'done' ? 100 : (r.progress ?? 0),
    recordsChecked: r.run.recordsChecked,
    findingsCount,
    error: r.run.error,
    startedBy: r.startedBy,
    createDate: r.run.createdAt.toISOString(),
    finishDate: r.run.finishedAt?.toISOString() ?? null,
  };
}

const runSelect = (ctx: AppContext) =>
  ctx.db
    .select(runColumns)
    .from(qualityRuns)
    .leftJoin(jobs, eq(jobs.jobId, sql`${qualityRuns.jobId}::uuid`))
    .leftJoin(users, eq(users.userId, qualityRuns.startedBy));

/** A run with its findings per rule (the caller's sites'), its state and its job's progress. */
export async function getRun(ctx: AppContext, access: StudyAccess, runId: number): Promise<QualityRun> {
  await runOf(ctx, access, runId);
  const [row] = await runSelect(ctx).where(eq(qualityRuns.id, runId));
  const rules = await ruleCounts(ctx, access, runId);
  return {
    ...runOut(
      row!,
      rules.reduce((sum, r) => sum + r.count, 0),
    ),
    rules,
  };
}

/** The study's runs, newest first, each with the number of findings the caller sees. */
export async function listRuns(ctx: AppContext, access: StudyAccess, page: PageRequest) {
  const mine = eq(qualityRuns.studyId, access.studyId);
  const { list, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(qualityRuns).where(mine),
    runSelect(ctx).where(mine).orderBy(desc(qualityRuns.createdAt), desc(qualityRuns.id)).$dynamic(),
    page,
  );
  const counted = await ctx.db
    .select({ runId: qualityFindings.runId, n: sql<number>`count(*)::int` })
    .from(qualityFindings)
    .where(
      visibleFindings(
        access,
        list.map((r) => r.run.id),
      ),
    )
    .groupBy(qualityFindings.runId);
  const byRun = new Map(counted.map((c) => [c.runId, Number(c.n)]));
  return { list: list.map((r) => runOut(r, byRun.get(r.run.id) ?? 0)), total };
}

/** The drill-down: one page of a run's findings (of one rule, of one status), with patient, site, form and item. */
export async function listFindings(
  ctx: AppContext,
  access: StudyAccess,
  query: QualityFindingsQuery,
  page: PageRequest,
): Promise<{ list: QualityFinding[]; total: number }> {
  await runOf(ctx, access, query.runId);
  const where = and(
    visibleFindings(access, [query.runId]),
    query.ruleKey ? eq(qualityFindings.ruleKey, query.ruleKey) : undefined,
    query.status ? eq(qualityFindings.status, query.status) : undefined,
  );
  const { list, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(qualityFindings).where(where),
    ctx.db
      .select({
        finding: qualityFindings,
        identificationCode: subjects.identificationCode,
        siteName: departments.deptName,
        crfTitle: crfs.title,
        crfVersion: crfDataRecords.crfVersion,
      })
      .from(qualityFindings)
      .innerJoin(subjectRecords, eq(subjectRecords.id, qualityFindings.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .leftJoin(departments, eq(departments.deptId, qualityFindings.deptId))
      .leftJoin(crfs, eq(crfs.id, qualityFindings.crfId))
      .leftJoin(crfDataRecords, eq(crfDataRecords.id, qualityFindings.crfDataRecordId))
      .where(where)
      .orderBy(asc(qualityFindings.id))
      .$dynamic(),
    page,
  );
  const definitions = await definitionsOf(
    ctx.db,
    list.flatMap((r) =>
      r.finding.crfId !== null && r.crfVersion !== null ? [{ crfId: r.finding.crfId, version: r.crfVersion }] : [],
    ),
  );
  return {
    total,
    list: list.map((r) => {
      const f = r.finding;
      const definition =
        f.crfId !== null && r.crfVersion !== null ? definitions.get(versionKey(f.crfId, r.crfVersion)) : undefined;
      const itemTitle = f.itemName ? (definition && nodesOf(definition).get(f.itemName)?.title) || f.itemName : null;
      return {
        findingId: f.id,
        runId: f.runId,
        subjectRecordId: f.subjectRecordId,
        crfDataRecordId: f.crfDataRecordId,
        identificationCode: r.identificationCode,
        deptId: f.deptId,
        siteName: r.siteName,
        crfId: f.crfId,
        crfTitle: r.crfTitle,
        itemName: f.itemName,
        itemTitle,
        ruleKey: f.ruleKey,
        ruleText: f.ruleText,
        status: f.status as QualityFinding['status'],
        doubtId: f.doubtId,
      };
    }),
  };
}

/**
 * One query (质疑) per open finding named, with the finding's words, each in its own transaction with the finding's
 * link, through the query service: a locked record, an item with an open query already, or a study without queries
 * is refused for that finding (its reason answered) and the others go on. A finding already queried is never
 * queried again, so a second batch over the same findings raises none.
 */
export async function raiseQueries(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  body: QualityQueriesBody,
): Promise<QualityQueriesResult> {
  if (!hasStudyPermission(access, buttonKey('study.doubt.open'))) throw AppError.forbidden();
  await runOf(ctx, access, body.runId);
  const named = await ctx.db
    .select({
      id: qualityFindings.id,
      status: qualityFindings.status,
      crfDataRecordId: qualityFindings.crfDataRecordId,
      itemName: qualityFindings.itemName,
    })
    .from(qualityFindings)
    .where(
      and(
        visibleFindings(access, [body.runId]),
        body.findingIds ? inArray(qualityFindings.id, body.findingIds) : undefined,
        body.ruleKey ? eq(qualityFindings.ruleKey, body.ruleKey) : undefined,
        // A whole rule means its open findings; findings named one by one are each answered.
        body.findingIds ? undefined : eq(qualityFindings.status, 'open'),
      ),
    )
    .orderBy(asc(qualityFindings.id));
  const refused: QualityQueriesResult['refused'] = [];
  const seen = new Set(named.map((f) => f.id));
  for (const id of body.findingIds ?? []) {
    if (!seen.has(id)) refused.push({ findingId: id, reason: QUALITY_MSG.runNotFound });
  }
  let raised = 0;
  for (const finding of named) {
    if (finding.status !== 'open') {
      refused.push({ findingId: finding.id, reason: QUALITY_MSG.notOpen });
      continue;
    }
    if (finding.crfDataRecordId === null || finding.itemName === null) {
      refused.push({ findingId: finding.id, reason: QUALITY_MSG.patientLevel });
      continue;
    }
    try {
      const done = await ctx.db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(qualityFindings)
          .where(and(eq(qualityFindings.id, finding.id), eq(qualityFindings.status, 'open')))
          .for('update');
        if (!current) return false;
        // The query service's own transaction runs as a savepoint of this one: the query and the link commit together.
        const { doubtId } = await openDoubt({ ...ctx, db: tx }, user, access, {
          crfDataRecordId: current.crfDataRecordId,
          itemName: current.itemName!,
          doubtDescription: current.ruleText,
        });
        await tx.update(qualityFindings).set({ status: 'queried', doubtId }).where(eq(qualityFindings.id, current.id));
        return true;
      });
      if (done) raised += 1;
      else refused.push({ findingId: finding.id, reason: QUALITY_MSG.notOpen });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused.push({ findingId: finding.id, reason: err.message });
    }
  }
  return { raised, refused };
}

/** How many finished runs the dashboard shows. */
export const DASHBOARD_RUNS = 12;

/** Open findings of the latest finished runs, per site and per rule (the caller's sites'), oldest run first. */
export async function dashboard(ctx: AppContext, access: StudyAccess): Promise<QualityDashboard> {
  const runs = (
    await ctx.db
      .select({ id: qualityRuns.id, createdAt: qualityRuns.createdAt })
      .from(qualityRuns)
      .where(and(eq(qualityRuns.studyId, access.studyId), eq(qualityRuns.state, 'done')))
      .orderBy(desc(qualityRuns.createdAt), desc(qualityRuns.id))
      .limit(DASHBOARD_RUNS)
  ).reverse();
  const ids = runs.map((r) => r.id);
  const open = and(visibleFindings(access, ids), eq(qualityFindings.status, 'open'));
  const bySite = await ctx.db
    .select({
      runId: qualityFindings.runId,
      deptId: qualityFindings.deptId,
      siteName: departments.deptName,
      n: sql<number>`count(*)::int`,
    })
    .from(qualityFindings)
    .leftJoin(departments, eq(departments.deptId, qualityFindings.deptId))
    .where(open)
    .groupBy(qualityFindings.runId, qualityFindings.deptId, departments.deptName)
    .orderBy(asc(departments.deptName));
  const byRule = await ctx.db
    .select({
      runId: qualityFindings.runId,
      ruleKey: qualityFindings.ruleKey,
      text: sql<string>`min(${qualityFindings.ruleText})`,
      n: sql<number>`count(*)::int`,
    })
    .from(qualityFindings)
    .where(open)
    .groupBy(qualityFindings.runId, qualityFindings.ruleKey)
    .orderBy(asc(qualityFindings.ruleKey));
  return {
    runs: runs.map((run) => {
      const sites = bySite
        .filter((s) => s.runId === run.id)
        .map((s) => ({ deptId: s.deptId, siteName: s.siteName ?? '未分配中心', open: Number(s.n) }));
      return {
        runId: run.id,
        runDate: run.createdAt.toISOString(),
        open: sites.reduce((sum, s) => sum + s.open, 0),
        bySite: sites,
        byRule: byRule
          .filter((r) => r.runId === run.id)
          .map((r) => ({ ruleKey: r.ruleKey, ruleText: qualityRuleText(r.ruleKey, r.text), open: Number(r.n) })),
      };
    }),
  };
}
