import { and, count, desc, eq, gte, ilike, inArray, lte, ne, sql } from 'drizzle-orm';
import { maskName } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs, doubtMessages, doubts, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, recordInCallerSites } from '../../shared/patient-site.js';
import { canViewCrf, hasStudyPermission, viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { doubtReader } from './doubt-text.js';

// Queries (质疑): their states and messages, reading and counting them. Raising, answering and closing a query
// are in doubt-actions.service.ts, the system's own queries in system-queries.service.ts.

export const OPTION = { open: 0, closed: 1, replied: 2 } as const;
export const DOUBT_TYPE = { system: 0, user: 1 } as const;

export const DOUBT_MSG = {
  opened: '开启质疑成功',
  replied: '回复质疑成功',
  closed: '关闭质疑成功',
  replyRequired: '请输入回复内容',
  closeRequired: '请输入关闭原因',
  contentRequired: '请输入质疑内容',
  saveFirst: '请先保存表单，再发起质疑',
  disabled: '该项目未开启质疑',
  alreadyOpen: '该题目已有未关闭的质疑',
  autoClosed: '数据已修正，系统自动关闭',
} as const;

export const notFound = () => AppError.notFound('doubt.not_found', '质疑不存在');

export function valueAt(
  values: Record<string, unknown>,
  itemName: string,
  groupName?: string | null,
  groupIndex?: number | null,
) {
  if (groupName) {
    const rows = values[groupName];
    return Array.isArray(rows)
      ? ((rows[groupIndex ?? -1] as Record<string, unknown> | undefined)?.[itemName] ?? null)
      : null;
  }
  return values[itemName] ?? null;
}

export async function addMessage(
  db: Db,
  doubtId: number,
  studyId: number,
  kind: string,
  content: string,
  itemValue: unknown,
  user: { userId: number; userName: string },
  at: Date,
) {
  await db.insert(doubtMessages).values({
    doubtId,
    studyId,
    kind,
    content,
    itemValue: itemValue ?? null,
    userId: user.userId,
    userName: user.userName,
    createdAt: at,
  });
}

/** The value a query's item holds now in its record (null once the record or the item is gone). */
export async function currentValueOf(
  db: Db,
  doubt: { crfDataRecordId: number; itemName: string; groupName: string | null; groupIndex: number | null },
) {
  const [record] = await db
    .select({ values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, doubt.crfDataRecordId));
  return valueAt(record?.values ?? {}, doubt.itemName, doubt.groupName, doubt.groupIndex);
}

/** Writes a new open query on one item of a saved record, a user's or the system's; returns its id. */
export async function insertOpenDoubt(
  db: Db,
  record: { id: number; studyId: number; subjectRecordId: number; crfId: number },
  query: {
    itemName: string;
    groupName: string | null;
    groupIndex: number | null;
    itemValue: unknown;
    doubtDescription: string;
    doubtType: (typeof DOUBT_TYPE)[keyof typeof DOUBT_TYPE];
    checkKey?: string;
    createdBy: number;
    userName: string;
  },
  at: Date,
) {
  const [row] = await db
    .insert(doubts)
    .values({
      studyId: record.studyId,
      subjectRecordId: record.subjectRecordId,
      crfDataRecordId: record.id,
      crfId: record.crfId,
      ...query,
      optionType: OPTION.open,
      createdAt: at,
      updatedAt: at,
    })
    .returning({ id: doubts.id });
  return row!.id;
}

function present(
  row: typeof doubts.$inferSelect,
  extra: Partial<{ identificationCode: string; subjectName: string; crfTitle: string }> = {},
) {
  return {
    doubtId: row.id,
    studyId: row.studyId,
    subjectRecordId: row.subjectRecordId,
    crfDataRecordId: row.crfDataRecordId,
    crfId: row.crfId,
    itemName: row.itemName,
    itemValue: row.itemValue,
    groupName: row.groupName,
    groupIndex: row.groupIndex,
    doubtDescription: row.doubtDescription,
    optionType: row.optionType,
    doubtType: row.doubtType,
    userName: row.userName,
    createDate: row.createdAt,
    updateDate: row.updatedAt,
    closeDate: row.closedAt,
    ...extra,
  };
}

export async function getDoubt(ctx: AppContext, access: StudyAccess, doubtId: number) {
  const [row] = await ctx.db.select().from(doubts).where(eq(doubts.id, doubtId));
  if (!row) throw notFound();
  // A query carries the item's value: it is read under the form's view permission.
  if (!canViewCrf(access, row.crfId)) throw AppError.forbidden();
  const messages = await ctx.db
    .select()
    .from(doubtMessages)
    .where(eq(doubtMessages.doubtId, doubtId))
    .orderBy(doubtMessages.id);
  const currentValue = await currentValueOf(ctx.db, row);
  const [crf] = await ctx.db.select({ title: crfs.title }).from(crfs).where(eq(crfs.id, row.crfId));
  const reader = await doubtReader(
    ctx.db,
    row.studyId,
    [row],
    messages.map((m) => [row, m.itemValue] as const),
    seesIdentifiers(access),
  );
  return {
    ...present(row, { crfTitle: crf?.title }),
    itemValue: reader.shown(row, row.itemValue),
    ...reader.words(row),
    currentValue: reader.shown(row, currentValue),
    currentValueText: reader.text(row, currentValue),
    messages: messages.map((m) => ({
      id: m.id,
      kind: m.kind,
      content: m.content,
      itemValue: reader.shown(row, m.itemValue),
      itemValueText: reader.text(row, m.itemValue, m.createdAt),
      userName: m.userName,
      createDate: m.createdAt,
    })),
  };
}

export interface DoubtFilter {
  subjectRecordId?: number;
  crfId?: number;
  crfDataRecordId?: number;
  itemName?: string;
  optionType?: number;
  doubtType?: number;
  userName?: string;
  identificationCode?: string;
  beginDate?: string;
  endDate?: string;
}

/** Queries of the CRFs the caller may view only. */
function viewableDoubts(access: StudyAccess) {
  const viewable = viewableCrfIds(access);
  if (viewable === null) return undefined;
  return viewable.length > 0 ? inArray(doubts.crfId, viewable) : sql`false`;
}

export async function listDoubts(
  ctx: AppContext,
  access: StudyAccess,
  studyId: number,
  filter: DoubtFilter,
  page: PageRequest,
) {
  const where = and(
    eq(doubts.studyId, studyId),
    viewableDoubts(access),
    inCallerSites(access, subjects.deptId),
    filter.subjectRecordId ? eq(doubts.subjectRecordId, filter.subjectRecordId) : undefined,
    filter.crfId ? eq(doubts.crfId, filter.crfId) : undefined,
    filter.crfDataRecordId ? eq(doubts.crfDataRecordId, filter.crfDataRecordId) : undefined,
    filter.itemName ? eq(doubts.itemName, filter.itemName) : undefined,
    filter.optionType !== undefined ? eq(doubts.optionType, filter.optionType) : undefined,
    filter.doubtType !== undefined ? eq(doubts.doubtType, filter.doubtType) : undefined,
    filter.userName ? ilike(doubts.userName, `%${filter.userName}%`) : undefined,
    filter.identificationCode ? ilike(subjects.identificationCode, `%${filter.identificationCode}%`) : undefined,
    filter.beginDate ? gte(doubts.createdAt, new Date(`${filter.beginDate}T00:00:00+08:00`)) : undefined,
    filter.endDate ? lte(doubts.createdAt, new Date(`${filter.endDate}T23:59:59.999+08:00`)) : undefined,
  );
  const base = () =>
    ctx.db
      .select({
        doubt: doubts,
        identificationCode: subjects.identificationCode,
        subjectName: subjects.subjectName,
        crfTitle: crfs.title,
      })
      .from(doubts)
      .innerJoin(subjectRecords, eq(subjectRecords.id, doubts.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .innerJoin(crfs, eq(crfs.id, doubts.crfId));
  const { list: rows, total } = await pagedQuery(
    ctx.db
      .select({ total: count() })
      .from(doubts)
      .innerJoin(subjectRecords, eq(subjectRecords.id, doubts.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(where),
    base().where(where).orderBy(desc(doubts.updatedAt), desc(doubts.id)).$dynamic(),
    page,
  );
  const clearNames = seesIdentifiers(access);
  const reader = await doubtReader(
    ctx.db,
    studyId,
    rows.map((r) => r.doubt),
    [],
    clearNames,
  );
  return {
    list: rows.map((r) => ({
      ...present(r.doubt, {
        identificationCode: r.identificationCode,
        subjectName: clearNames ? r.subjectName : maskName(r.subjectName),
        crfTitle: r.crfTitle,
      }),
      itemValue: reader.shown(r.doubt, r.doubt.itemValue),
      ...reader.words(r.doubt),
    })),
    total,
  };
}

/** Queries waiting for the caller: open ones to answer, replied ones to close. */
export async function waitingCount(ctx: AppContext, access: StudyAccess) {
  const states: number[] = [];
  if (hasStudyPermission(access, 'btn:study.doubt.reply')) states.push(OPTION.open);
  if (hasStudyPermission(access, 'btn:study.doubt.close')) states.push(OPTION.replied);
  if (states.length === 0) return { waiting: 0 };
  const [{ n }] = (await ctx.db
    .select({ n: count() })
    .from(doubts)
    .where(
      and(
        eq(doubts.studyId, access.studyId),
        inArray(doubts.optionType, states),
        viewableDoubts(access),
        recordInCallerSites(access, doubts.subjectRecordId),
      ),
    )) as [{ n: number }];
  return { waiting: Number(n) };
}

/** Open or replied queries of a subject's records, for the menu's 存在质疑 state and the item markers. */
export async function activeDoubtsOf(db: Db, subjectRecordId: number) {
  return db
    .select({
      doubtId: doubts.id,
      crfId: doubts.crfId,
      crfDataRecordId: doubts.crfDataRecordId,
      itemName: doubts.itemName,
      groupName: doubts.groupName,
      groupIndex: doubts.groupIndex,
      optionType: doubts.optionType,
      doubtType: doubts.doubtType,
    })
    .from(doubts)
    .where(and(eq(doubts.subjectRecordId, subjectRecordId), ne(doubts.optionType, OPTION.closed)));
}
