import { and, asc, count, desc, eq, gt, isNull, or } from 'drizzle-orm';
import {
  buttonKey,
  maskIdentifier,
  nowString,
  SUBJECT_IDENTIFIER_FIELDS,
  type AuditAction,
  type SubjectIdentifierField,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { auditEvents, crfDataRecords } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { canViewCrf, hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';
import { appendChained, type ChainedContent } from './audit-chain.js';
// visibleTo: the rows the caller reads, by what each records and by its CRF (one rule for every view).
import { mayReadAuditRow, readableAuditRowsOf as visibleTo } from './audit-read.js';
import { readableAuditRows } from './audit-text.service.js';
import { redactForCaller } from './row-redaction.js';

export interface AuditEntry {
  studyId: number;
  subjectRecordId?: number | null;
  crfDataRecordId?: number | null;
  crfId?: number | null;
  crfVersion?: number | null;
  /** Only codes with a name (core's AUDIT_ACTION_NAMES) can be written. */
  action: AuditAction;
  itemName?: string | null;
  oldValue?: unknown;
  newValue?: unknown;
  reason?: string | null;
}

/**
 * Writes audit rows inside the caller's transaction: the data and its history commit together.
 * Each row is hashed onto its study's chain (modules/audit/audit-chain.ts); inside
 * `db.transaction` the rows are written when the transaction's own work is done, so the chain's
 * lock is its last. A change whose audit rows cannot be written does not commit.
 */
export async function audit(tx: Db, user: CurrentUser, at: Date, entries: AuditEntry[]) {
  await appendAudit(tx, actorOf(user), at, entries);
}

/** Who the trail names for what the system did on its own (system queries raised and closed by the edit checks). */
export const SYSTEM_ACTOR = { userId: 0, userName: '系统' } as const;

/** Audit rows of the system's own acts, in the caller's transaction like every other audit row. */
export async function auditSystem(tx: Db, at: Date, entries: AuditEntry[]) {
  await appendAudit(tx, SYSTEM_ACTOR, at, entries);
}

/** Who the trail names for a signed-in user's acts. */
export const actorOf = (user: Pick<CurrentUser, 'userId' | 'name' | 'userName'>) => ({
  userId: user.userId,
  userName: `${user.name}(${user.userName})`,
});

async function appendAudit(tx: Db, actor: { userId: number; userName: string }, at: Date, entries: AuditEntry[]) {
  if (entries.length === 0) return;
  await appendChained(tx, chainedContent(actor, at, entries));
}

/** Audit entries as the chain stores them. */
export function chainedContent(
  actor: { userId: number; userName: string },
  at: Date,
  entries: readonly AuditEntry[],
): ChainedContent[] {
  return entries.map((e) => ({
    studyId: e.studyId,
    subjectRecordId: e.subjectRecordId ?? null,
    crfDataRecordId: e.crfDataRecordId ?? null,
    crfId: e.crfId ?? null,
    crfVersion: e.crfVersion ?? null,
    action: e.action,
    itemName: e.itemName ?? null,
    oldValue: e.oldValue === undefined ? null : e.oldValue,
    newValue: e.newValue === undefined ? null : e.newValue,
    reason: e.reason ?? null,
    userId: actor.userId,
    userName: actor.userName,
    createdAt: at,
  }));
}

/** One row's change, as a set-up operation sees it: absent before (added) or after (removed). */
export interface RowChange<T> {
  before: T | null;
  after: T | null;
}

/**
 * Audits changes to set-up rows (staff, forms in a stage): one audit row per changed row, keyed by
 * what the row is about, with the row's audited fields before and after.
 */
export async function auditRowChanges<T extends { studyId: number }>(
  tx: Db,
  user: CurrentUser,
  at: Date,
  action: AuditAction,
  changes: ReadonlyArray<RowChange<T>>,
  describe: { key: (row: T) => Pick<AuditEntry, 'itemName' | 'crfId'>; view: (row: T) => unknown },
) {
  await audit(
    tx,
    user,
    at,
    changes.map(({ before, after }) => {
      const row = (after ?? before)!;
      return {
        studyId: row.studyId,
        ...describe.key(row),
        action,
        oldValue: before && describe.view(before),
        newValue: after && describe.view(after),
      };
    }),
  );
}

const eventColumns = {
  id: auditEvents.id,
  action: auditEvents.action,
  subjectRecordId: auditEvents.subjectRecordId,
  crfDataRecordId: auditEvents.crfDataRecordId,
  crfId: auditEvents.crfId,
  crfVersion: auditEvents.crfVersion,
  itemName: auditEvents.itemName,
  oldValue: auditEvents.oldValue,
  newValue: auditEvents.newValue,
  reason: auditEvents.reason,
  userName: auditEvents.userName,
  createTime: auditEvents.createdAt,
};

async function crfOfDataRecord(ctx: AppContext, crfDataRecordId: number) {
  const [row] = await ctx.db
    .select({ crfId: crfDataRecords.crfId })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, crfDataRecordId));
  if (!row) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
  return row.crfId;
}

/** A record's trail (or one item's), newest first, in words: for whoever may view the record's CRF. */
export async function recordHistory(ctx: AppContext, access: StudyAccess, crfDataRecordId: number, itemName?: string) {
  if (!canViewCrf(access, await crfOfDataRecord(ctx, crfDataRecordId))) throw AppError.forbidden();
  const rows = await ctx.db
    .select(eventColumns)
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.studyId, access.studyId),
        eq(auditEvents.crfDataRecordId, crfDataRecordId),
        itemName ? eq(auditEvents.itemName, itemName) : undefined,
        visibleTo(access),
      ),
    )
    .orderBy(desc(auditEvents.id));
  return readableAuditRows(ctx.db, access.studyId, rows, { identifiers: seesIdentifierItems(access) });
}

const IDENTIFIERS = new Set<string>(SUBJECT_IDENTIFIER_FIELDS);
/** Whether the caller reads identifier items (and the patient's identifiers) in clear. */
const seesIdentifierItems = (access: StudyAccess) =>
  hasStudyPermission(access, buttonKey('business.subject.identifiers'));
const maskField = (field: string, value: unknown) =>
  IDENTIFIERS.has(field) && typeof value === 'string' ? maskIdentifier(field as SubjectIdentifierField, value) : value;
const maskFields = (value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskField(k, v)]))
    : value;

/**
 * PIPL: patient rows of the trail keep names and birth dates (mobile and ID number are written
 * masked), so a caller without 查看患者身份信息 reads those masked too, as in the patient list.
 */
export function forCaller<T extends { action: string; itemName: string | null; oldValue: unknown; newValue: unknown }>(
  access: StudyAccess,
  given: T,
): T {
  const row = redactForCaller(access, given);
  if (!row.action.startsWith('subject.') || hasStudyPermission(access, buttonKey('business.subject.identifiers'))) {
    return row;
  }
  if (row.itemName) {
    return { ...row, oldValue: maskField(row.itemName, row.oldValue), newValue: maskField(row.itemName, row.newValue) };
  }
  return { ...row, oldValue: maskFields(row.oldValue), newValue: maskFields(row.newValue) };
}

export async function subjectHistory(ctx: AppContext, access: StudyAccess, subjectRecordId: number, page: PageRequest) {
  const where = and(eq(auditEvents.subjectRecordId, subjectRecordId), visibleTo(access));
  const { list, total } = await pagedQuery(
    ctx.db.select({ total: count() }).from(auditEvents).where(where),
    ctx.db.select(eventColumns).from(auditEvents).where(where).orderBy(desc(auditEvents.id)).$dynamic(),
    page,
  );
  const readable = await readableAuditRows(
    ctx.db,
    access.studyId,
    list.map((row) => forCaller(access, row)),
    { identifiers: seesIdentifierItems(access) },
  );
  return { list: readable, total };
}

export async function auditEvent(ctx: AppContext, id: number) {
  const [row] = await ctx.db
    .select({ ...eventColumns, studyId: auditEvents.studyId })
    .from(auditEvents)
    .where(eq(auditEvents.id, id));
  return row;
}

/** One audit row in words, for a caller who may read it: its CRF and what it records (403 otherwise). */
export async function readableEvent(ctx: AppContext, access: StudyAccess, id: number) {
  const event = await auditEvent(ctx, id);
  if (!event || event.studyId !== access.studyId || !mayReadAuditRow(access, event)) throw AppError.forbidden();
  const [row] = await readableAuditRows(ctx.db, access.studyId, [forCaller(access, event)], {
    identifiers: seesIdentifierItems(access),
  });
  if (!row) throw AppError.forbidden();
  return row;
}

/** Trail rows about a patient of one of the caller's sites, or about no patient (undefined for all sites). */
function rowsOfCallerSites(access: StudyAccess) {
  const sites = recordInCallerSites(access, auditEvents.subjectRecordId);
  return sites && or(isNull(auditEvents.subjectRecordId), sites);
}

const csvCell = (v: unknown) => {
  const text = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // A cell starting with = + - @ (or a tab or return) is a formula to Excel: mark it as text (CSV
  // injection). Plain numbers such as -3.5 stay as they are.
  const formula = /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text);
  const safe = formula ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

const CSV_HEADER = [
  '序号',
  '时间',
  '操作人',
  '操作',
  '受试者编号',
  '表单',
  'CRF版本',
  '题目',
  '原值',
  '新值',
  '原因',
  '操作代码',
  '题目变量名',
  '原值（原始）',
  '新值（原始）',
  '受试者记录ID',
  'CRF记录ID',
  'CRF ID',
  '时间（UTC）',
];

const EXPORT_BATCH = 2000;

/**
 * The study's audit trail as CSV (UTF-8 with BOM so Excel shows Chinese), whole or one patient's,
 * record's or item's (what an audit view shows): the same words as the trail on the page (titles,
 * labels, units, file names, action names), then the raw codes and stored values so nothing is lost
 * in the reading. Rows are read and put into words 2,000 at a time.
 */
export async function exportStudyAudit(
  ctx: AppContext,
  access: StudyAccess,
  studyId: number,
  scope: { subjectRecordId?: number; crfDataRecordId?: number; itemName?: string } = {},
) {
  const lines = [CSV_HEADER.join(',')];
  // The study's whole trail leaves out the rows about other sites' patients (set-up rows, about no patient, stay);
  // a patient's or a record's was let through by the study guard already.
  const sites = scope.subjectRecordId || scope.crfDataRecordId ? undefined : rowsOfCallerSites(access);
  let after = 0;
  for (;;) {
    const batch = await ctx.db
      .select(eventColumns)
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.studyId, studyId),
          visibleTo(access),
          sites,
          scope.subjectRecordId ? eq(auditEvents.subjectRecordId, scope.subjectRecordId) : undefined,
          scope.crfDataRecordId ? eq(auditEvents.crfDataRecordId, scope.crfDataRecordId) : undefined,
          scope.itemName ? eq(auditEvents.itemName, scope.itemName) : undefined,
          gt(auditEvents.id, after),
        ),
      )
      .orderBy(asc(auditEvents.id))
      .limit(EXPORT_BATCH);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    const rows = await readableAuditRows(
      ctx.db,
      studyId,
      batch.map((row) => forCaller(access, row)),
      { subjectCodes: true, identifiers: seesIdentifierItems(access) },
    );
    for (const r of rows) {
      lines.push(
        [
          r.id,
          nowString(r.createTime, access.timeZone),
          r.userName,
          r.actionName,
          r.identificationCode,
          r.crfTitle,
          r.crfVersion,
          r.itemTitle,
          r.oldText,
          r.newText,
          r.reason,
          r.action,
          r.itemName,
          r.oldValue,
          r.newValue,
          r.subjectRecordId,
          r.crfDataRecordId,
          r.crfId,
          r.createTime.toISOString(),
        ]
          .map(csvCell)
          .join(','),
      );
    }
    if (batch.length < EXPORT_BATCH) break;
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

export interface AuditExportScope {
  subjectRecordId?: number;
  crfDataRecordId?: number;
  itemName?: string;
}

/**
 * The CSV file of one audit view, under that view's rule: a record's (or item's) trail for whoever
 * may view its CRF, a patient's for the study's members, the whole study's for monitors (and
 * study:manage holders) only.
 */
export async function exportAudit(ctx: AppContext, access: StudyAccess, scope: AuditExportScope) {
  const { subjectRecordId, crfDataRecordId, itemName } = scope;
  if (crfDataRecordId) {
    // What the record's history drawer shows, under the same rule.
    if (!canViewCrf(access, await crfOfDataRecord(ctx, crfDataRecordId))) throw AppError.forbidden();
  } else if (!subjectRecordId && !hasStudyPermission(access, buttonKey('business.crf.sdv'))) {
    // The whole study's trail in one file is the monitors' (and study:manage holders').
    throw AppError.forbidden();
  }
  const csv = await exportStudyAudit(ctx, access, access.studyId, { subjectRecordId, crfDataRecordId, itemName });
  const suffix = crfDataRecordId ? `-记录${crfDataRecordId}` : subjectRecordId ? `-受试者${subjectRecordId}` : '';
  return {
    fileName: `稽查轨迹-${access.studyId}${suffix}.csv`,
    type: 'text/csv; charset=utf-8',
    data: Buffer.from(csv),
  };
}
