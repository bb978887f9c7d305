import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import {
  LAB_RANGE_MSG,
  labRangesOfRows,
  type LabRange,
  type LabReferenceRange,
  type LabRangeCreateBody,
  type LabRangeImportResult,
  type LabRangeUpdateBody,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { departments, labReferenceRanges } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { lockRefusals, type LockTarget } from '../locks/lock-gate.js';
import type { SheetRow } from './lab-range-files.js';

/**
 * 参考范围 (issue 37): a site's laboratory reference ranges. Site scope as for patients (docs/multi-centre.md): a member
 * without 查看全部中心数据 lists, loads and changes only the ranges of their own sites; every change is audited, a
 * change or deletion with its reason.
 *
 * Under locks (docs/multi-centre.md): a site's ranges are study configuration, not a record's data. A save stores the
 * ranges it judged by with the record (crf_data_records.lab_ranges), so a change of ranges never rewrites a locked
 * record. Still, a locked or finished study takes no change of ranges (数据库锁定 freezes the configuration the data
 * were judged by), nor does a locked site's (中心锁定); form and casebook locks do not hold ranges.
 */

type Row = typeof labReferenceRanges.$inferSelect;

const num = (v: string | null): number | null => (v === null || v === '' ? null : Number(v));

/** A stored row as the engine reads it (numerics arrive as strings). */
export function labRangeOf(r: typeof labReferenceRanges.$inferSelect): LabReferenceRange {
  return {
    id: r.id,
    analyte: r.analyte,
    sex: r.sex === 1 || r.sex === 2 ? r.sex : null,
    ageMin: num(r.ageMin),
    ageMax: num(r.ageMax),
    lower: num(r.lower),
    upper: num(r.upper),
    unit: r.unit,
    effectiveFrom: r.effectiveFrom,
  };
}

const otherSite = () => AppError.forbidden('lab_range.other_site', LAB_RANGE_MSG.otherSite);

/** The sites the caller may load ranges for: their own, or every department with all-sites access. */
export async function sitesFor(db: Db, access: StudyAccess) {
  const where = access.siteIds === null ? undefined : inArray(departments.deptId, access.siteIds);
  if (access.siteIds !== null && access.siteIds.length === 0) return [];
  return db
    .select({ deptId: departments.deptId, deptName: departments.deptName })
    .from(departments)
    .where(where)
    .orderBy(asc(departments.orderNum), asc(departments.deptId));
}

function rangeOut(r: Row, siteNames: ReadonlyMap<number, string>): LabRange {
  const engine = labRangeOf(r);
  return {
    ...engine,
    siteId: r.siteId,
    siteName: siteNames.get(r.siteId) ?? String(r.siteId),
    analyteName: r.analyteName,
  };
}

/** What the trail keeps of a range: the row as a person reads it. */
const auditView = (r: Omit<LabRange, 'id' | 'siteName'>) => ({
  siteId: r.siteId,
  analyte: r.analyte,
  analyteName: r.analyteName,
  unit: r.unit,
  sex: r.sex,
  ageMin: r.ageMin,
  ageMax: r.ageMax,
  lower: r.lower,
  upper: r.upper,
  effectiveFrom: r.effectiveFrom,
});

const numText = (n: number | null) => (n === null ? null : String(n));

function columnsOf(body: Omit<LabRangeCreateBody, 'studyId'>) {
  return {
    siteId: body.siteId,
    analyte: body.analyte,
    analyteName: body.analyteName ?? null,
    unit: body.unit ?? null,
    sex: body.sex,
    ageMin: numText(body.ageMin),
    ageMax: numText(body.ageMax),
    lower: numText(body.lower),
    upper: numText(body.upper),
    effectiveFrom: body.effectiveFrom,
  };
}

export async function listRanges(
  ctx: AppContext,
  access: StudyAccess,
  q: { siteId?: number; analyte?: string },
): Promise<{ list: LabRange[]; sites: Array<{ deptId: number; deptName: string }> }> {
  const sites = await sitesFor(ctx.db, access);
  if (q.siteId !== undefined && !seesSite(access, q.siteId)) throw otherSite();
  const where: SQL[] = [eq(labReferenceRanges.studyId, access.studyId)];
  if (access.siteIds !== null) {
    where.push(inArray(labReferenceRanges.siteId, access.siteIds.length ? access.siteIds : [0]));
  }
  if (q.siteId !== undefined) where.push(eq(labReferenceRanges.siteId, q.siteId));
  if (q.analyte) where.push(eq(labReferenceRanges.analyte, q.analyte));
  const rows = await ctx.db
    .select()
    .from(labReferenceRanges)
    .where(and(...where))
    .orderBy(
      asc(labReferenceRanges.siteId),
      asc(labReferenceRanges.analyte),
      asc(labReferenceRanges.effectiveFrom),
      asc(labReferenceRanges.id),
    );
  const names = await siteNamesOf(
    ctx.db,
    rows.map((r) => r.siteId),
  );
  return { list: rows.map((r) => rangeOut(r, names)), sites };
}

async function siteNamesOf(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ deptId: departments.deptId, deptName: departments.deptName })
    .from(departments)
    .where(inArray(departments.deptId, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.deptId, r.deptName]));
}

async function assertSite(db: Db, access: StudyAccess, siteId: number) {
  if (!seesSite(access, siteId)) throw otherSite();
  const [site] = await db
    .select({ deptId: departments.deptId })
    .from(departments)
    .where(eq(departments.deptId, siteId));
  if (!site) throw AppError.badRequest('lab_range.no_site', LAB_RANGE_MSG.noSite);
}

/**
 * Refuses (423, the lock's words as every writer gives them) a change of these sites' ranges while the study is
 * finished or locked, or one of the sites (or a department above it) is locked. Inside the writer's transaction,
 * through the writers' own gate: a lock set meanwhile waits for the change to commit, or the change sees the lock.
 */
async function assertRangesWritable(db: Db, studyId: number, siteIds: readonly number[]) {
  const targets: LockTarget[] = [{}, ...[...new Set(siteIds)].map((siteId) => ({ siteId }))];
  const refusalOf = await lockRefusals(db, studyId, targets);
  for (const target of targets) {
    const refusal = refusalOf(target);
    if (refusal) throw refusal;
  }
}

/** The range of this study the caller may change, locked until the change commits. */
async function ownRange(tx: Db, access: StudyAccess, id: number): Promise<Row> {
  const [row] = await tx
    .select()
    .from(labReferenceRanges)
    .where(and(eq(labReferenceRanges.id, id), eq(labReferenceRanges.studyId, access.studyId)))
    .for('update');
  // Another site's range is not there for a site-scoped member: the same answer as none.
  if (!row || !seesSite(access, row.siteId)) throw AppError.notFound('lab_range.not_found', LAB_RANGE_MSG.notFound);
  return row;
}

export async function createRange(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: LabRangeCreateBody) {
  return ctx.db.transaction(async (tx) => {
    await assertSite(tx, access, body.siteId);
    await assertRangesWritable(tx, access.studyId, [body.siteId]);
    const [row] = await tx
      .insert(labReferenceRanges)
      .values({ studyId: access.studyId, ...columnsOf(body), createdBy: user.userId, createdAt: ctx.clock() })
      .returning();
    const out = rangeOut(row!, await siteNamesOf(tx, [row!.siteId]));
    await audit(tx, user, ctx.clock(), [
      { studyId: access.studyId, action: 'lab_range.create', itemName: out.analyte, newValue: auditView(out) },
    ]);
    return out;
  });
}

export async function updateRange(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  id: number,
  body: LabRangeUpdateBody,
) {
  return ctx.db.transaction(async (tx) => {
    const before = await ownRange(tx, access, id);
    await assertSite(tx, access, body.siteId);
    // Moving a range to another site changes both sites' ranges.
    await assertRangesWritable(tx, access.studyId, [before.siteId, body.siteId]);
    const [row] = await tx
      .update(labReferenceRanges)
      .set(columnsOf(body))
      .where(eq(labReferenceRanges.id, id))
      .returning();
    const names = await siteNamesOf(tx, [before.siteId, row!.siteId]);
    const out = rangeOut(row!, names);
    await audit(tx, user, ctx.clock(), [
      {
        studyId: access.studyId,
        action: 'lab_range.update',
        itemName: out.analyte,
        oldValue: auditView(rangeOut(before, names)),
        newValue: auditView(out),
        reason: body.reason,
      },
    ]);
    return out;
  });
}

export async function deleteRange(ctx: AppContext, user: CurrentUser, access: StudyAccess, id: number, reason: string) {
  await ctx.db.transaction(async (tx) => {
    const before = await ownRange(tx, access, id);
    await assertRangesWritable(tx, access.studyId, [before.siteId]);
    await tx.delete(labReferenceRanges).where(eq(labReferenceRanges.id, id));
    const names = await siteNamesOf(tx, [before.siteId]);
    await audit(tx, user, ctx.clock(), [
      {
        studyId: access.studyId,
        action: 'lab_range.delete',
        itemName: before.analyte,
        oldValue: auditView(rangeOut(before, names)),
        reason,
      },
    ]);
  });
}

/**
 * An import file's ranges: the preview (dryRun) says which rows would be loaded and which are refused and why; the
 * import loads all or nothing, so a file with a refused row is refused whole and never half-loaded. A locked or
 * finished study, or a locked site of any row, refuses the preview and the import with the lock's words (423).
 */
export async function importRanges(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  rows: readonly SheetRow[],
  dryRun: boolean,
): Promise<LabRangeImportResult> {
  const everySite = await ctx.db
    .select({ deptId: departments.deptId, deptName: departments.deptName })
    .from(departments);
  const byName = new Map(everySite.map((d) => [d.deptName.trim(), d]));
  const byId = new Map(everySite.map((d) => [String(d.deptId), d]));
  const { accepted, refused } = labRangesOfRows(rows, (text) => {
    const site = byName.get(text) ?? byId.get(text);
    if (!site) return 'unknown';
    return seesSite(access, site.deptId) ? site : 'outside';
  });
  if (accepted.length === 0 && refused.length === 0) {
    throw AppError.badRequest('lab_range.no_rows', LAB_RANGE_MSG.noRows);
  }
  // The preview answers a lock as the import would: a dry run promises nothing the import cannot keep.
  const sites = accepted.map((r) => r.siteId);
  if (dryRun) {
    await assertRangesWritable(ctx.db, access.studyId, sites);
    return { accepted, refused, imported: 0 };
  }
  if (refused.length > 0) {
    throw AppError.badRequest('lab_range.import_refused', LAB_RANGE_MSG.importRefused, {
      accepted,
      refused,
      imported: 0,
    });
  }
  await ctx.db.transaction(async (tx) => {
    await assertRangesWritable(tx, access.studyId, sites);
    const at = ctx.clock();
    const inserted = await tx
      .insert(labReferenceRanges)
      .values(
        accepted.map((r) => ({ studyId: access.studyId, ...columnsOf(r), createdBy: user.userId, createdAt: at })),
      )
      .returning({ id: labReferenceRanges.id });
    await audit(
      tx,
      user,
      at,
      accepted.map((r, i) => ({
        studyId: access.studyId,
        action: 'lab_range.import' as const,
        itemName: r.analyte,
        newValue: { id: inserted[i]!.id, ...auditView(r) },
      })),
    );
  });
  return { accepted, refused, imported: accepted.length };
}
