import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import {
  MESSAGE_KINDS,
  MESSAGE_MSG,
  maskName,
  type MessageListQuery,
  type MessageReport,
  type MessageRow,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { messageOptOuts, patientMessages, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, withSubDepartments } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { outboxOpen } from './messaging-providers.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The scope of a list or report: the study, the caller's sites, a chosen site (with its sub-departments). */
async function scope(ctx: AppContext, access: StudyAccess, deptId: number | undefined): Promise<SQL[]> {
  const where: SQL[] = [eq(patientMessages.studyId, access.studyId)];
  const mine = inCallerSites(access, subjects.deptId);
  if (mine) where.push(mine);
  if (deptId !== undefined) {
    const tree = await withSubDepartments(ctx, [deptId]);
    const site = inCallerSites({ siteIds: tree }, subjects.deptId);
    if (site) where.push(site);
  }
  return where;
}

const rowColumns = {
  m: patientMessages,
  identificationCode: subjects.identificationCode,
  subjectName: subjects.subjectName,
};

function rowOut(
  r: { m: typeof patientMessages.$inferSelect; identificationCode: string; subjectName: string },
  clear: boolean,
): MessageRow {
  const m = r.m;
  return {
    id: m.id,
    subjectId: m.subjectId,
    identificationCode: r.identificationCode,
    subjectName: clear ? r.subjectName : maskName(r.subjectName),
    kind: m.kind as MessageRow['kind'],
    channel: m.channel as MessageRow['channel'],
    provider: m.provider,
    recipient: m.recipient,
    content: m.content,
    state: m.state as MessageRow['state'],
    attempts: m.attempts,
    notBefore: m.notBefore.toISOString(),
    sentAt: iso(m.sentAt),
    deliveredAt: iso(m.deliveredAt),
    error: m.error,
    providerAnswer: m.providerAnswer ?? null,
    createTime: m.createdAt.toISOString(),
  };
}

/** The study's messages, newest first, under the caller's site scope; names masked as the patient list masks them. */
export async function listMessages(ctx: AppContext, access: StudyAccess, q: MessageListQuery, page: PageRequest) {
  const where = await scope(ctx, access, q.deptId);
  if (q.subjectId !== undefined) where.push(eq(patientMessages.subjectId, q.subjectId));
  if (q.state) where.push(eq(patientMessages.state, q.state));
  if (q.kind) where.push(eq(patientMessages.kind, q.kind));
  const cond = and(...where);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(rowColumns)
      .from(patientMessages)
      .innerJoin(subjects, eq(subjects.id, patientMessages.subjectId))
      .where(cond)
      .orderBy(desc(patientMessages.createdAt), desc(patientMessages.id))
      .limit(page.limit)
      .offset(page.offset),
    ctx.db
      .select({ n: count() })
      .from(patientMessages)
      .innerJoin(subjects, eq(subjects.id, patientMessages.subjectId))
      .where(cond),
  ]);
  const clear = seesIdentifiers(access);
  return { list: rows.map((r) => rowOut(r, clear)), total: total?.n ?? 0 };
}

/** Counts per state and per kind, and the patients opted out, over the caller's scope. */
export async function messageReport(
  ctx: AppContext,
  access: StudyAccess,
  deptId: number | undefined,
): Promise<MessageReport> {
  const where = await scope(ctx, access, deptId);
  const rows = await ctx.db
    .select({ kind: patientMessages.kind, state: patientMessages.state, n: count() })
    .from(patientMessages)
    .innerJoin(subjects, eq(subjects.id, patientMessages.subjectId))
    .where(and(...where))
    .groupBy(patientMessages.kind, patientMessages.state);
  const byState: Record<string, number> = {};
  const kinds = new Map<string, Record<string, number>>();
  let total = 0;
  for (const r of rows) {
    total += r.n;
    byState[r.state] = (byState[r.state] ?? 0) + r.n;
    const k = kinds.get(r.kind) ?? {};
    k[r.state] = (k[r.state] ?? 0) + r.n;
    kinds.set(r.kind, k);
  }
  const optWhere: SQL[] = [eq(messageOptOuts.studyId, access.studyId)];
  const mine = inCallerSites(access, subjects.deptId);
  if (mine) optWhere.push(mine);
  if (deptId !== undefined) {
    const site = inCallerSites({ siteIds: await withSubDepartments(ctx, [deptId]) }, subjects.deptId);
    if (site) optWhere.push(site);
  }
  const [opted] = await ctx.db
    .select({ n: count() })
    .from(messageOptOuts)
    .innerJoin(subjects, eq(subjects.id, messageOptOuts.subjectId))
    .where(and(...optWhere));
  return {
    total,
    byState,
    byKind: MESSAGE_KINDS.map((kind) => ({ kind, byState: kinds.get(kind) ?? {} })),
    optedOut: opted?.n ?? 0,
  };
}

/** The development outbox: the rows as stored (clear names for the demo reader), only while SMS goes to dev. */
export async function outbox(ctx: AppContext, access: StudyAccess, page: PageRequest) {
  if (!outboxOpen()) throw AppError.notFound('message.outbox_closed', MESSAGE_MSG.outboxClosed);
  return listMessages(ctx, access, { studyId: access.studyId } as MessageListQuery, page);
}
