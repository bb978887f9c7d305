import { and, count, desc, eq, sql } from 'drizzle-orm';
import {
  AE_FORM_TITLE,
  AE_ITEMS,
  aeFormDefinition,
  aeSeriousness,
  saeClock,
  saeDeadline,
  SAFETY_MSG,
  type SaeKind,
  type SaeListQuery,
  type SaeReport,
  type SaeState,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  departments,
  saeReports,
  studies,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit, auditSystem } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { uploadDefinition } from '../study/crf.service.js';
import { createStage, importCrfsIntoStage } from '../study/setup.service.js';

// The safety module (不良事件 / SAE, issue 37). A study turns it on; the module then provides the AE log form (made
// through the ordinary CRF upload, so it is versioned, permissioned and placeable like any CRF) and watches its saves:
// a serious event with an awareness time gets an SAE report whose 24-hour clock runs from that time (core saeClock).
// Reports are rows of sae_reports, one per version; every state change is an audit row of the same transaction.

/** The stage the AE log is placed in when the module first makes it: a repeatable form, one record per event. */
export const AE_STAGE_NAME = '不良事件';

const reportNotFound = () => AppError.notFound('sae.not_found', SAFETY_MSG.reportNotFound);

export async function getModule(ctx: AppContext, studyId: number) {
  const [study] = await ctx.db
    .select({ enabled: studies.aeEnabled, aeCrfId: studies.aeCrfId })
    .from(studies)
    .where(eq(studies.studyId, studyId));
  return { enabled: study?.enabled ?? false, aeCrfId: study?.aeCrfId ?? null };
}

/**
 * Turns the module on or off. The first time on, the AE log form is created through the CRF upload (a form of that
 * title already in the study is left alone: the module's gets a free title beside it) and placed, repeatable, in a
 * stage of its own at the end, so it is on every patient's casebook at once; an administrator may move it. Off keeps
 * the form, its records and the reports (they are trial data); the clock no longer starts for new serious events.
 */
export async function setModule(ctx: AppContext, user: CurrentUser, studyId: number, enabled: boolean) {
  const before = await getModule(ctx, studyId);
  let aeCrfId = before.aeCrfId;
  if (enabled && aeCrfId === null) {
    const stored = await uploadDefinition(ctx, user, studyId, aeFormDefinition(), {
      onExisting: { [AE_FORM_TITLE]: 'new' },
    });
    aeCrfId = stored.crfs[0]!.id;
    const stage = await createStage(ctx, user, { studyId, parentId: 0, name: AE_STAGE_NAME, orderNum: 999 });
    await importCrfsIntoStage(ctx, user, { crfStageId: stage.id, crfIds: [aeCrfId], repeat: 0 });
  }
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(studies)
      .set({ aeEnabled: enabled, aeCrfId, updatedAt: ctx.clock() })
      .where(eq(studies.studyId, studyId));
    if (before.enabled !== enabled || before.aeCrfId !== aeCrfId) {
      await audit(tx, user, ctx.clock(), [
        { studyId, action: 'study.safety', itemName: 'aeEnabled', oldValue: before, newValue: { enabled, aeCrfId } },
      ]);
    }
  });
  return { enabled, aeCrfId };
}

type ReportRow = typeof saeReports.$inferSelect;

/** What an SAE state change writes to the trail: the report's version, state and clock. */
const reportView = (r: Pick<ReportRow, 'version' | 'kind' | 'state' | 'awareAt' | 'deadlineAt'>) => ({
  version: r.version,
  kind: r.kind,
  state: r.state,
  awareAt: new Date(r.awareAt).toISOString(),
  deadlineAt: new Date(r.deadlineAt).toISOString(),
});

/** What a save did to the report's clock, for the subscriber's notices and calendar entries (after the commit). */
export interface SaeChange {
  /** A first report made, or a withdrawn one whose clock runs again. */
  created?: ReportRow;
  /** The awareness time changed while pending: the deadline moved from `before`'s to `after`'s. */
  moved?: { before: ReportRow; after: ReportRow };
  withdrawn?: ReportRow;
}

/**
 * A record of the AE log was saved: start, move or withdraw its SAE report. Works from the current rows, so a
 * repeated delivery changes nothing twice. Only the newest version's clock is moved or withdrawn, and only while
 * pending: a submitted report is what was sent; a change after it is a follow-up report's matter.
 */
export async function reactToAeSave(
  ctx: AppContext,
  event: { studyId: number; crfId: number; recordId: number; by: number },
): Promise<SaeChange> {
  const [study] = await ctx.db
    .select({ enabled: studies.aeEnabled, aeCrfId: studies.aeCrfId, timeZone: studies.timeZone })
    .from(studies)
    .where(eq(studies.studyId, event.studyId));
  if (!study?.enabled || study.aeCrfId !== event.crfId) return {};
  return ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, event.recordId), eq(crfDataRecords.studyId, event.studyId)));
    if (!record || record.deletedAt) return {};
    const seriousness = aeSeriousness(record.values, study.timeZone);
    const [latest] = await tx
      .select()
      .from(saeReports)
      .where(eq(saeReports.crfDataRecordId, record.id))
      .orderBy(desc(saeReports.version))
      .limit(1)
      .for('update');
    const now = ctx.clock();
    const trail = (
      action: 'sae.create' | 'sae.deadline' | 'sae.withdraw',
      before: ReportRow | null,
      after: ReportRow,
    ) =>
      auditSystem(tx, now, [
        {
          studyId: record.studyId,
          subjectRecordId: record.subjectRecordId,
          crfDataRecordId: record.id,
          crfId: record.crfId,
          crfVersion: record.crfVersion,
          action,
          itemName: `sae:${after.id}`,
          oldValue: before && reportView(before),
          newValue: { ...reportView(after), by: event.by },
        },
      ]);
    if (!latest) {
      if (!seriousness.serious || !seriousness.awareAt) return {};
      const [created] = await tx
        .insert(saeReports)
        .values({
          studyId: record.studyId,
          subjectRecordId: record.subjectRecordId,
          crfDataRecordId: record.id,
          version: 1,
          kind: 'initial',
          awareAt: seriousness.awareAt,
          deadlineAt: saeDeadline(seriousness.awareAt),
          state: 'pending',
          createdBy: event.by,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!created) return {};
      await trail('sae.create', null, created);
      return { created };
    }
    if (latest.version !== 1) return {};
    const set = async (change: Partial<ReportRow>, action: 'sae.create' | 'sae.deadline' | 'sae.withdraw') => {
      const [after] = await tx
        .update(saeReports)
        .set({ ...change, updatedAt: now })
        .where(eq(saeReports.id, latest.id))
        .returning();
      await trail(action, latest, after!);
      return after!;
    };
    if (latest.state === 'pending') {
      if (!seriousness.serious) return { withdrawn: await set({ state: 'withdrawn' }, 'sae.withdraw') };
      const awareAt = seriousness.awareAt;
      if (awareAt && awareAt.getTime() !== new Date(latest.awareAt).getTime()) {
        const after = await set({ awareAt, deadlineAt: saeDeadline(awareAt) }, 'sae.deadline');
        return { moved: { before: latest, after } };
      }
      return {};
    }
    // Marked serious again after a withdrawal: the same report's clock runs again, from the awareness time given.
    if (latest.state === 'withdrawn' && seriousness.serious && seriousness.awareAt) {
      const created = await set(
        { state: 'pending', awareAt: seriousness.awareAt, deadlineAt: saeDeadline(seriousness.awareAt) },
        'sae.create',
      );
      return { created };
    }
    return {};
  });
}

function scope(access: StudyAccess, state?: SaeState) {
  return and(
    eq(saeReports.studyId, access.studyId),
    state ? eq(saeReports.state, state) : undefined,
    recordInCallerSites(access, saeReports.subjectRecordId),
  );
}

const submitter = sql<
  string | null
>`(select ${users.name} from ${users} where ${users.userId} = ${saeReports.submittedBy})`;

/** A report with its AE record's values, its patient's code and site: what the list shows. */
function reportRows(db: Db) {
  return db
    .select({
      report: saeReports,
      crfId: crfDataRecords.crfId,
      values: crfDataRecords.values,
      identificationCode: subjects.identificationCode,
      siteId: subjects.deptId,
      siteName: departments.deptName,
      submittedByName: submitter,
    })
    .from(saeReports)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, saeReports.crfDataRecordId))
    .innerJoin(subjectRecords, eq(subjectRecords.id, saeReports.subjectRecordId))
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .$dynamic();
}

type ListRow = Awaited<ReturnType<typeof reportRows>>[number];

function present(row: ListRow, now: Date): SaeReport {
  const r = row.report;
  const clock = saeClock(new Date(r.deadlineAt), now, r.submittedAt ? new Date(r.submittedAt) : null);
  return {
    saeReportId: r.id,
    studyId: r.studyId,
    subjectRecordId: r.subjectRecordId,
    crfDataRecordId: r.crfDataRecordId,
    crfId: row.crfId,
    identificationCode: row.identificationCode,
    siteId: row.siteId,
    siteName: row.siteName,
    term: String(row.values[AE_ITEMS.term] ?? ''),
    grade: String(row.values[AE_ITEMS.grade] ?? ''),
    version: r.version,
    kind: r.kind as SaeKind,
    state: r.state as SaeState,
    awareAt: new Date(r.awareAt).toISOString(),
    deadlineAt: new Date(r.deadlineAt).toISOString(),
    // A withdrawn report's clock has stopped: it shows as neither running nor late.
    clockState: r.state === 'withdrawn' ? 'submitted' : clock.state,
    remainingMs: clock.remainingMs,
    clockText: r.state === 'withdrawn' ? '已撤销' : clock.text,
    submittedAt: r.submittedAt ? new Date(r.submittedAt).toISOString() : null,
    submittedByName: row.submittedByName,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

/** The study's SAE reports the caller sees (their sites), pending first by deadline, then the newest. */
export async function listReports(ctx: AppContext, access: StudyAccess, query: SaeListQuery, page: PageRequest) {
  const where = scope(access, query.state);
  const { list, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(saeReports).where(where),
    reportRows(ctx.db)
      .where(where)
      .orderBy(
        sql`case when ${saeReports.state} = 'pending' then 0 else 1 end`,
        sql`case when ${saeReports.state} = 'pending' then ${saeReports.deadlineAt} end`,
        desc(saeReports.createdAt),
        desc(saeReports.id),
      ),
    page,
  );
  const now = ctx.clock();
  return { list: list.map((row) => present(row, now)), total };
}

/** Pending reports the caller sees: the top bar's count. */
export async function pendingCount(ctx: AppContext, access: StudyAccess): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(saeReports).where(scope(access, 'pending'));
  return Number(row?.n ?? 0);
}

/** One report of the caller's study and sites, locked for the change (another site's reads as missing). */
async function reportForChange(tx: Db, access: StudyAccess, saeReportId: number) {
  const [row] = await reportRows(tx)
    .where(and(eq(saeReports.id, saeReportId), eq(saeReports.studyId, access.studyId)))
    .for('update', { of: saeReports });
  if (!row || !seesSite(access, row.siteId)) throw reportNotFound();
  return row;
}

/**
 * Submits a pending report: who and when, and the AE record's values as they are now (the report's content, kept
 * when the record changes later). A locked casebook or record takes no submission.
 */
export async function submitReport(ctx: AppContext, user: CurrentUser, access: StudyAccess, saeReportId: number) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const row = await reportForChange(tx, access, saeReportId);
    const before = row.report;
    if (before.state !== 'pending') throw AppError.conflict('sae.not_pending', SAFETY_MSG.notPending);
    await assertWritable(tx, {
      studyId: before.studyId,
      subjectRecordId: before.subjectRecordId,
      crfDataRecordId: before.crfDataRecordId,
    });
    const [after] = await tx
      .update(saeReports)
      .set({ state: 'submitted', submittedAt: now, submittedBy: user.userId, content: row.values, updatedAt: now })
      .where(eq(saeReports.id, before.id))
      .returning();
    await audit(tx, user, now, [
      {
        studyId: before.studyId,
        subjectRecordId: before.subjectRecordId,
        crfDataRecordId: before.crfDataRecordId,
        crfId: row.crfId,
        action: 'sae.submit',
        itemName: `sae:${before.id}`,
        oldValue: reportView(before),
        newValue: { ...reportView(after!), submittedAt: now.toISOString() },
      },
    ]);
    return present({ ...row, report: after!, submittedByName: user.name }, now);
  });
}

/**
 * Opens the next version of a submitted report (随访报告): pending, its clock running 24 hours from now (the new
 * information is known now). Only the newest version, once submitted, has a follow-up; versions are never changed.
 */
export async function createFollowup(ctx: AppContext, user: CurrentUser, access: StudyAccess, saeReportId: number) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const row = await reportForChange(tx, access, saeReportId);
    const base = row.report;
    const [latest] = await tx
      .select({ version: saeReports.version })
      .from(saeReports)
      .where(eq(saeReports.crfDataRecordId, base.crfDataRecordId))
      .orderBy(desc(saeReports.version))
      .limit(1);
    if (base.state !== 'submitted' || latest?.version !== base.version) {
      throw AppError.conflict('sae.not_latest', SAFETY_MSG.notLatest);
    }
    await assertWritable(tx, {
      studyId: base.studyId,
      subjectRecordId: base.subjectRecordId,
      crfDataRecordId: base.crfDataRecordId,
    });
    const [created] = await tx
      .insert(saeReports)
      .values({
        studyId: base.studyId,
        subjectRecordId: base.subjectRecordId,
        crfDataRecordId: base.crfDataRecordId,
        version: base.version + 1,
        kind: 'followup',
        awareAt: now,
        deadlineAt: saeDeadline(now),
        state: 'pending',
        createdBy: user.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(tx, user, now, [
      {
        studyId: base.studyId,
        subjectRecordId: base.subjectRecordId,
        crfDataRecordId: base.crfDataRecordId,
        crfId: row.crfId,
        action: 'sae.followup',
        itemName: `sae:${created!.id}`,
        oldValue: reportView(base),
        newValue: reportView(created!),
      },
    ]);
    return present({ ...row, report: created!, submittedByName: null }, now);
  });
}
