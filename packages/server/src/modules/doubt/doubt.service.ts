import { and, count, desc, eq, gte, ilike, inArray, isNull, lte, ne, sql } from 'drizzle-orm';
import { isValueType, maskName, type CrfDefinition, type CrfNode, type FormIssue, type FormState } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  crfDataRecords,
  crfs,
  doubtMessages,
  doubts,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, recordInCallerSites } from '../../shared/patient-site.js';
import { canViewCrf, hasStudyPermission, viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { audit, auditSystem } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { doubtReader } from './doubt-text.js';

export const OPTION = { open: 0, closed: 1, replied: 2 } as const;
export const DOUBT_TYPE = { system: 0, user: 1 } as const;
const SYSTEM_NAME = '系统';

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

const notFound = () => AppError.notFound('doubt.not_found', '质疑不存在');
const nameOf = (user: CurrentUser) => `${user.name}(${user.userName})`;

async function requireDoubtsOn(db: Db, studyId: number) {
  const [study] = await db.select({ doubt: studies.doubt }).from(studies).where(eq(studies.studyId, studyId));
  if (study?.doubt !== '1') throw AppError.badRequest('doubt.disabled', DOUBT_MSG.disabled);
}

function valueAt(
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

/** The patient (subjects.id) of a casebook, for the events about its queries. */
async function subjectOf(db: Db, subjectRecordId: number) {
  const [row] = await db
    .select({ subjectId: subjectRecords.subjectId })
    .from(subjectRecords)
    .where(eq(subjectRecords.id, subjectRecordId));
  return row!.subjectId;
}

/** A query event, after the change to the query is written, in its transaction. */
async function recordQueryEvent(
  ctx: AppContext,
  tx: Db,
  type: 'query.opened' | 'query.answered' | 'query.closed',
  doubt: { id: number; studyId: number; subjectRecordId: number; crfId: number },
  by: number,
) {
  await ctx.events.record(tx, {
    type,
    studyId: doubt.studyId,
    subjectId: await subjectOf(tx, doubt.subjectRecordId),
    crfId: doubt.crfId,
    queryId: doubt.id,
    by,
  });
}

export async function studyOfDoubt(ctx: AppContext, doubtId: number) {
  const [row] = await ctx.db.select({ studyId: doubts.studyId }).from(doubts).where(eq(doubts.id, doubtId));
  return row?.studyId;
}

export async function studyOfDataRecord(ctx: AppContext, crfDataRecordId: number) {
  const [row] = await ctx.db
    .select({ studyId: crfDataRecords.studyId })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, crfDataRecordId));
  return row?.studyId;
}

async function addMessage(
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

export interface OpenInput {
  crfDataRecordId?: number | null;
  itemName?: string;
  groupName?: string | null;
  groupIndex?: number | null;
  doubtDescription: string;
  /** Re-open a replied query with a new message. */
  doubtId?: number | null;
}

/** A monitor raises a query on one item of a saved record, or re-opens a replied one. */
export async function openDoubt(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: OpenInput) {
  const content = input.doubtDescription?.trim();
  if (!content) throw AppError.badRequest('doubt.content_required', DOUBT_MSG.contentRequired);
  await requireDoubtsOn(ctx.db, access.studyId);
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    if (input.doubtId) {
      const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, input.doubtId)).for('update');
      if (!doubt || doubt.studyId !== access.studyId) throw notFound();
      await assertWritable(tx, {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
      });
      if (doubt.optionType !== OPTION.replied) {
        throw AppError.conflict('doubt.not_replied', '只有已回复的质疑可以重新开启');
      }
      const [record] = await tx
        .select({ values: crfDataRecords.values })
        .from(crfDataRecords)
        .where(eq(crfDataRecords.id, doubt.crfDataRecordId));
      const value = valueAt(record?.values ?? {}, doubt.itemName, doubt.groupName, doubt.groupIndex);
      await tx.update(doubts).set({ optionType: OPTION.open, updatedAt: now }).where(eq(doubts.id, doubt.id));
      await addMessage(
        tx,
        doubt.id,
        doubt.studyId,
        'reopen',
        content,
        value,
        { userId: user.userId, userName: nameOf(user) },
        now,
      );
      await audit(tx, user, now, [
        {
          studyId: doubt.studyId,
          subjectRecordId: doubt.subjectRecordId,
          crfDataRecordId: doubt.crfDataRecordId,
          crfId: doubt.crfId,
          action: 'doubt.reopen',
          itemName: doubt.itemName,
          newValue: content,
        },
      ]);
      await recordQueryEvent(ctx, tx, 'query.opened', doubt, user.userId);
      return { doubtId: doubt.id };
    }
    if (!input.crfDataRecordId) throw AppError.badRequest('doubt.save_first', DOUBT_MSG.saveFirst);
    const [record] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, input.crfDataRecordId), isNull(crfDataRecords.deletedAt)));
    if (!record || record.studyId !== access.studyId) {
      throw AppError.badRequest('doubt.save_first', DOUBT_MSG.saveFirst);
    }
    await assertWritable(tx, {
      studyId: record.studyId,
      subjectRecordId: record.subjectRecordId,
      crfDataRecordId: record.id,
    });
    if (!input.itemName) throw AppError.badRequest('doubt.item_required', '请选择质疑的题目');
    const [existing] = await tx
      .select({ id: doubts.id })
      .from(doubts)
      .where(
        and(
          eq(doubts.crfDataRecordId, record.id),
          eq(doubts.itemName, input.itemName),
          input.groupName ? eq(doubts.groupName, input.groupName) : isNull(doubts.groupName),
          input.groupIndex !== undefined && input.groupIndex !== null
            ? eq(doubts.groupIndex, input.groupIndex)
            : isNull(doubts.groupIndex),
          ne(doubts.optionType, OPTION.closed),
          eq(doubts.doubtType, DOUBT_TYPE.user),
        ),
      );
    if (existing) throw AppError.conflict('doubt.already_open', DOUBT_MSG.alreadyOpen);
    const itemValue = valueAt(record.values, input.itemName, input.groupName, input.groupIndex);
    const [row] = await tx
      .insert(doubts)
      .values({
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        itemName: input.itemName,
        groupName: input.groupName ?? null,
        groupIndex: input.groupIndex ?? null,
        itemValue,
        doubtDescription: content,
        optionType: OPTION.open,
        doubtType: DOUBT_TYPE.user,
        createdBy: user.userId,
        userName: nameOf(user),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: doubts.id });
    await addMessage(
      tx,
      row!.id,
      record.studyId,
      'open',
      content,
      itemValue,
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
    await audit(tx, user, now, [
      {
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        action: 'doubt.open',
        itemName: input.itemName,
        newValue: content,
      },
    ]);
    await recordQueryEvent(ctx, tx, 'query.opened', { ...record, id: row!.id }, user.userId);
    return { doubtId: row!.id };
  });
}

export async function replyDoubt(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  doubtId: number,
  content: string,
) {
  if (!content?.trim()) throw AppError.badRequest('doubt.reply_required', DOUBT_MSG.replyRequired);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, doubtId)).for('update');
    if (!doubt || doubt.studyId !== access.studyId) throw notFound();
    await assertWritable(tx, {
      studyId: doubt.studyId,
      subjectRecordId: doubt.subjectRecordId,
      crfDataRecordId: doubt.crfDataRecordId,
    });
    if (doubt.optionType === OPTION.closed) throw AppError.conflict('doubt.closed', '质疑已关闭');
    const [record] = await tx
      .select({ values: crfDataRecords.values })
      .from(crfDataRecords)
      .where(eq(crfDataRecords.id, doubt.crfDataRecordId));
    await tx.update(doubts).set({ optionType: OPTION.replied, updatedAt: now }).where(eq(doubts.id, doubtId));
    await addMessage(
      tx,
      doubtId,
      doubt.studyId,
      'reply',
      content.trim(),
      valueAt(record?.values ?? {}, doubt.itemName, doubt.groupName, doubt.groupIndex),
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
    await audit(tx, user, now, [
      {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
        crfId: doubt.crfId,
        action: 'doubt.reply',
        itemName: doubt.itemName,
        newValue: content.trim(),
      },
    ]);
    await recordQueryEvent(ctx, tx, 'query.answered', doubt, user.userId);
  });
}

export async function closeDoubt(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  doubtId: number,
  reason: string,
) {
  if (!reason?.trim()) throw AppError.badRequest('doubt.close_required', DOUBT_MSG.closeRequired);
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const [doubt] = await tx.select().from(doubts).where(eq(doubts.id, doubtId)).for('update');
    if (!doubt || doubt.studyId !== access.studyId) throw notFound();
    await assertWritable(tx, {
      studyId: doubt.studyId,
      subjectRecordId: doubt.subjectRecordId,
      crfDataRecordId: doubt.crfDataRecordId,
    });
    if (doubt.optionType === OPTION.closed) throw AppError.conflict('doubt.closed', '质疑已关闭');
    await tx
      .update(doubts)
      .set({ optionType: OPTION.closed, closedAt: now, updatedAt: now })
      .where(eq(doubts.id, doubtId));
    await addMessage(
      tx,
      doubtId,
      doubt.studyId,
      'close',
      reason.trim(),
      null,
      { userId: user.userId, userName: nameOf(user) },
      now,
    );
    await audit(tx, user, now, [
      {
        studyId: doubt.studyId,
        subjectRecordId: doubt.subjectRecordId,
        crfDataRecordId: doubt.crfDataRecordId,
        crfId: doubt.crfId,
        action: 'doubt.close',
        itemName: doubt.itemName,
        reason: reason.trim(),
      },
    ]);
    await recordQueryEvent(ctx, tx, 'query.closed', doubt, user.userId);
  });
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
  const [record] = await ctx.db
    .select({ values: crfDataRecords.values })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.id, row.crfDataRecordId));
  const [crf] = await ctx.db.select({ title: crfs.title }).from(crfs).where(eq(crfs.id, row.crfId));
  const currentValue = valueAt(record?.values ?? {}, row.itemName, row.groupName, row.groupIndex);
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
  const [{ total }] = (await ctx.db
    .select({ total: count() })
    .from(doubts)
    .innerJoin(subjectRecords, eq(subjectRecords.id, doubts.subjectRecordId))
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(where)) as [{ total: number }];
  const rows = await base()
    .where(where)
    .orderBy(desc(doubts.updatedAt), desc(doubts.id))
    .limit(page.limit)
    .offset(page.offset);
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
    total: Number(total),
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

function titlesOf(definition: CrfDefinition) {
  const titles = new Map<string, string>();
  const walk = (nodes: CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type)) titles.set(node.name, node.title);
      walk(node.children ?? []);
    }
  };
  walk(definition.children);
  return titles;
}

interface Finding {
  itemName: string;
  groupName: string | null;
  groupIndex: number | null;
  message: string;
}

/** The engine's warnings and out-of-range values of a submitted record, as system-query findings. */
export function systemFindings(definition: CrfDefinition, state: FormState): Finding[] {
  const titles = titlesOf(definition);
  const findings: Finding[] = state.warnings.map((w: FormIssue) => ({
    itemName: w.item,
    groupName: w.container ?? null,
    groupIndex: w.row ?? null,
    message: w.message,
  }));
  for (const [name, item] of Object.entries(state.items)) {
    if (item.visible && item.range) {
      findings.push({
        itemName: name,
        groupName: null,
        groupIndex: null,
        message: `${titles.get(name) ?? name}${item.range === 'low' ? '低于' : '高于'}参考范围，请核实`,
      });
    }
  }
  return findings;
}

const keyOf = (f: Finding) => `${f.groupName ?? ''}|${f.groupIndex ?? ''}|${f.itemName}|${f.message}`.slice(0, 300);

/**
 * System queries (doubtType 0): raised from the engine's warnings when a record is submitted, never
 * twice for the same check while it is unresolved, and closed by the system once a later save no
 * longer raises the warning (the value was corrected). Run by the system-query subscriber after the
 * save committed (system-queries.subscriber.ts), on the record as it is then; each query raised or
 * closed is audited as the system's act (doubt.system_open, doubt.system_close) and published.
 */
export async function syncSystemQueries(
  ctx: AppContext,
  tx: Db,
  now: Date,
  record: {
    id: number;
    studyId: number;
    subjectId: number;
    subjectRecordId: number;
    crfId: number;
    crfVersion: number;
    values: Record<string, unknown>;
  },
  /** The user whose save set this off: the query rows' creator, as before; the trail names 系统. */
  triggeredBy: number,
  findings: Finding[],
  raise: boolean,
) {
  const [study] = await tx.select({ doubt: studies.doubt }).from(studies).where(eq(studies.studyId, record.studyId));
  if (study?.doubt !== '1') return;
  const active = await tx
    .select()
    .from(doubts)
    .where(
      and(
        eq(doubts.crfDataRecordId, record.id),
        eq(doubts.doubtType, DOUBT_TYPE.system),
        ne(doubts.optionType, OPTION.closed),
      ),
    );
  const current = new Map(findings.map((f) => [keyOf(f), f]));
  const system = { userId: triggeredBy, userName: SYSTEM_NAME };
  const base = {
    studyId: record.studyId,
    subjectRecordId: record.subjectRecordId,
    crfDataRecordId: record.id,
    crfId: record.crfId,
    crfVersion: record.crfVersion,
  };
  const event = (type: 'query.opened' | 'query.closed', queryId: number): DomainEvent => ({
    type,
    studyId: record.studyId,
    subjectId: record.subjectId,
    crfId: record.crfId,
    queryId,
    by: null,
  });
  for (const doubt of active) {
    if (doubt.checkKey && !current.has(doubt.checkKey)) {
      await tx
        .update(doubts)
        .set({ optionType: OPTION.closed, closedAt: now, updatedAt: now })
        .where(eq(doubts.id, doubt.id));
      await addMessage(
        tx,
        doubt.id,
        doubt.studyId,
        'auto_close',
        DOUBT_MSG.autoClosed,
        valueAt(record.values, doubt.itemName, doubt.groupName, doubt.groupIndex),
        system,
        now,
      );
      await auditSystem(tx, now, [
        { ...base, action: 'doubt.system_close', itemName: doubt.itemName, reason: DOUBT_MSG.autoClosed },
      ]);
      await ctx.events.record(tx, event('query.closed', doubt.id));
    }
  }
  if (!raise) return;
  const open = new Set(active.map((d) => d.checkKey));
  for (const [key, finding] of current) {
    if (open.has(key)) continue;
    const itemValue = valueAt(record.values, finding.itemName, finding.groupName, finding.groupIndex);
    const [row] = await tx
      .insert(doubts)
      .values({
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        itemName: finding.itemName,
        groupName: finding.groupName,
        groupIndex: finding.groupIndex,
        itemValue,
        doubtDescription: finding.message,
        optionType: OPTION.open,
        doubtType: DOUBT_TYPE.system,
        checkKey: key,
        createdBy: triggeredBy,
        userName: SYSTEM_NAME,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: doubts.id });
    await addMessage(tx, row!.id, record.studyId, 'open', finding.message, itemValue, system, now);
    await auditSystem(tx, now, [
      { ...base, action: 'doubt.system_open', itemName: finding.itemName, newValue: finding.message },
    ]);
    await ctx.events.record(tx, event('query.opened', row!.id));
  }
}
