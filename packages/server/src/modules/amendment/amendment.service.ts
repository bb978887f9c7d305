import { and, count, desc, eq, isNull, lt } from 'drizzle-orm';
import {
  crfKey,
  IMPACT_KIND_NAMES,
  plainText,
  type AmendmentRow,
  type ImpactRecordRow,
  type ImpactSummaryView,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { amendments, crfDataRecords, crfs, subjectRecords, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { PageRequest } from '../../shared/paging.js';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { impactOf, impactRows, type DrillDown, type Impact } from './amendment-impact.service.js';
import { draftRowOf } from './crf-draft.service.js';

/**
 * Amendments (方案修订) as the manager reads them: the list with the records still to move, the impact report of a
 * CRF draft or of a published amendment over the records still on older versions, its drill-down and its Excel.
 */

type AmendmentRecordRow = typeof amendments.$inferSelect;

export async function listAmendments(ctx: AppContext, studyId: number): Promise<AmendmentRow[]> {
  const rows = await ctx.db
    .select({ amendment: amendments, crfTitle: crfs.title, createdByName: users.name })
    .from(amendments)
    .leftJoin(crfs, eq(crfs.id, amendments.crfId))
    .leftJoin(users, eq(users.userId, amendments.createdBy))
    .where(eq(amendments.studyId, studyId))
    .orderBy(desc(amendments.createdAt), desc(amendments.id));
  const out: AmendmentRow[] = [];
  for (const { amendment: a, crfTitle, createdByName } of rows) {
    let remaining = 0;
    if (a.kind === 'crf' && a.crfId !== null && a.toVersion !== null) {
      remaining = await remainingCount(ctx, a.crfId, a.toVersion);
    }
    out.push({
      id: a.id,
      name: a.name,
      kind: a.kind === 'follow' ? 'follow' : 'crf',
      crfId: a.crfId,
      crfTitle: crfTitle ?? null,
      followPlanId: a.followPlanId,
      fromVersion: a.fromVersion,
      toVersion: a.toVersion,
      createdAt: a.createdAt.toISOString(),
      createdByName: createdByName ?? null,
      report: a.report,
      remaining,
    });
  }
  return out;
}

/** A CRF amendment of the study, or 404. */
export async function crfAmendmentOf(ctx: AppContext, studyId: number, id: number) {
  const [row] = await ctx.db
    .select({ amendment: amendments, crfTitle: crfs.title })
    .from(amendments)
    .innerJoin(crfs, eq(crfs.id, amendments.crfId))
    .where(and(eq(amendments.id, id), eq(amendments.studyId, studyId), eq(amendments.kind, 'crf')));
  if (!row || row.amendment.toVersion === null || row.amendment.fromVersion === null) {
    throw AppError.notFound('amendment.not_found', '方案修订不存在');
  }
  return row as {
    amendment: AmendmentRecordRow & { crfId: number; fromVersion: number; toVersion: number };
    crfTitle: string;
  };
}

/** The impact of a CRF's open draft over every live record of the form. */
export async function draftImpactOf(ctx: AppContext, studyId: number, crfId: number) {
  const [crf] = await ctx.db
    .select({ title: crfs.title, currentVersion: crfs.currentVersion })
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw AppError.notFound('crf.not_found', 'CRF不存在');
  const draft = await draftRowOf(ctx.db, crfId);
  if (!draft) throw AppError.notFound('crf.draft_not_found', '该CRF没有草稿');
  const impact = await impactOf(ctx, { studyId, crfId, fromVersion: crf.currentVersion, toVersion: draft.version });
  return { title: crf.title, impact };
}

/** The impact of a published amendment over the records still to move. */
export async function amendmentImpactOf(ctx: AppContext, studyId: number, id: number) {
  const { amendment: a, crfTitle } = await crfAmendmentOf(ctx, studyId, id);
  const impact = await impactOf(ctx, {
    studyId,
    crfId: a.crfId,
    fromVersion: a.fromVersion,
    toVersion: a.toVersion,
  });
  return { title: crfTitle, impact };
}

/** Values of the form are read only with its view key. */
function requireView(access: StudyAccess, crfId: number) {
  if (!hasStudyPermission(access, crfKey(crfId, 'view'))) throw AppError.forbidden();
}

export async function drillDown(
  ctx: AppContext,
  access: StudyAccess,
  impact: Impact,
  filter: DrillDown,
  page: PageRequest,
): Promise<{ total: number; rows: ImpactRecordRow[] }> {
  requireView(access, impact.summary.crfId);
  const rows = await impactRows(ctx, access, impact, filter);
  return { total: rows.length, rows: rows.slice(page.offset, page.offset + page.limit) };
}

const yes = (b: boolean) => (b ? '是' : '');

/** 影响报告.xlsx: the summary (item lists, counts, findings) and every finding the caller may read. */
export async function impactWorkbook(ctx: AppContext, access: StudyAccess, title: string, impact: Impact) {
  requireView(access, impact.summary.crfId);
  const s: ImpactSummaryView = impact.summary;
  const rows = await impactRows(ctx, access, impact, {});
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  const summary = book.addWorksheet('汇总');
  summary.addRow(['表单', title]);
  summary.addRow(['版本', `第${s.fromVersion}版 → 第${s.toVersion}版`]);
  summary.addRow([]);
  const items = (name: string, list: ImpactSummaryView['diff']['added']) =>
    summary.addRow([name, list.map((i) => (i.from ? `${i.from} → ${i.to}` : `${i.label}（${i.name}）`)).join('、')]);
  items('新增题目', s.diff.added);
  items('删除题目', s.diff.removed);
  items('可能改名', s.diff.renamed);
  summary.addRow([
    '类型改变',
    s.diff.retyped.map((i) => `${i.label}（${i.name}）：${i.fromType} → ${i.toType}`).join('、'),
  ]);
  summary.addRow([]);
  summary.addRow(['记录总数', s.records.total]);
  summary.addRow(['已提交', s.records.submitted]);
  summary.addRow(['已签名', s.records.signed]);
  summary.addRow(['已SDV', s.records.sdvVerified]);
  summary.addRow(['已锁定（不迁移）', s.records.locked]);
  summary.addRow(['数据将改变', s.records.changed]);
  summary.addRow(['数据不变', s.records.unchanged]);
  summary.addRow([]);
  summary.addRow(['影响', '题目', '题目名', '条数']);
  for (const f of s.findings) summary.addRow([IMPACT_KIND_NAMES[f.kind], f.label, f.itemName, f.count]);
  summary.getColumn(1).width = 18;
  summary.getColumn(2).width = 60;

  const detail = book.addWorksheet('明细');
  detail.addRow([
    '患者编号',
    '中心',
    '表单记录ID',
    '题目',
    '题目名',
    '影响',
    '原值',
    '新值',
    '已提交',
    '已签名',
    '已SDV',
    '已锁定',
  ]);
  for (const r of rows) {
    detail.addRow([
      r.identificationCode,
      r.siteName ?? '',
      r.crfDataRecordId,
      r.label,
      r.itemName,
      IMPACT_KIND_NAMES[r.kind],
      plainText(r.oldValue),
      plainText(r.newValue),
      yes(r.submitted),
      yes(r.signed),
      yes(r.sdvVerified),
      yes(r.locked),
    ]);
  }
  return {
    fileName: `${title}-影响报告.xlsx`,
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    data: Buffer.from(await book.xlsx.writeBuffer()),
  };
}

/** Live records of the form still on a version older than `toVersion` (deleted records and casebooks aside). */
export async function remainingCount(ctx: AppContext, crfId: number, toVersion: number) {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(crfDataRecords)
    .innerJoin(
      subjectRecords,
      and(eq(subjectRecords.id, crfDataRecords.subjectRecordId), isNull(subjectRecords.deletedAt)),
    )
    .where(
      and(eq(crfDataRecords.crfId, crfId), isNull(crfDataRecords.deletedAt), lt(crfDataRecords.crfVersion, toVersion)),
    );
  return Number(row?.n ?? 0);
}
