import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import {
  buttonKey,
  changedItemNames,
  changedMarkNames,
  compareDoubleEntries,
  crfKey,
  DOUBLE_ENTRY_LABELS,
  DOUBLE_ENTRY_MSG,
  MISSING_MSG,
  reconcileDoubleEntries,
  type DoubleEntryDoneBody,
  type DoubleEntryQuery,
  type DoubleEntryReconcileBody,
  type DoubleEntrySaveBody,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfs, doubleEntries, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { canViewCrf, hasStudyPermission, seesSite, type StudyAccess } from '../../shared/study-access.js';
import { actorOf, audit, type AuditEntry } from '../audit/audit.service.js';
import { writeForm, otherSiteRefusal } from '../crf-data/form-write.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf, nodesOf } from '../study/crf-definitions.js';
import { getMissingCodes } from '../study/missing-codes.service.js';

/**
 * 双份录入 (issue 37). A form set to double entry is typed twice from the paper CRF by two different users, each
 * blind to the other's entry; the entries live in double_entries, apart from the record. A third user (双录入核对,
 * neither of the two) compares them and decides each difference; the decided values are written to the form record
 * through the one write path (form-write.ts), so the record's audit rows, engine validation, signature voiding and
 * events are a save's. Every step is an audit row of its own transaction. Site scope is the study guard's (every
 * request names its subjectRecordId); the form's permissions and the locks are checked here.
 */

type Entry = typeof doubleEntries.$inferSelect;
export type Instance = Pick<DoubleEntryQuery, 'subjectRecordId' | 'crfId'> & { crfDataRecordId?: number | null };

const RECONCILE = buttonKey('business.doubleEntry.reconcile');
const notDoubleEntry = () => AppError.badRequest('double_entry.not_double_entry', DOUBLE_ENTRY_MSG.notDoubleEntry);

function present(row: Entry) {
  return {
    entryId: row.id,
    entryNo: row.entryNo,
    state: row.state === 'done' ? ('done' as const) : ('draft' as const),
    userId: row.userId,
    userName: row.userName,
    crfVersion: row.crfVersion,
    values: row.values,
    missing: row.missing,
    updateDate: new Date(row.updatedAt).toISOString(),
  };
}

/** Sets a form to double entry, or back (CRF configuration, audited). */
export async function setDoubleEntry(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: { crfId: number; doubleEntry: boolean },
) {
  await ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select({ id: crfs.id, doubleEntry: crfs.doubleEntry })
      .from(crfs)
      .where(and(eq(crfs.id, input.crfId), eq(crfs.studyId, access.studyId)))
      .for('update');
    if (!before) throw AppError.notFound('crf.not_found', 'CRF不存在');
    if (before.doubleEntry === input.doubleEntry) return;
    await tx.update(crfs).set({ doubleEntry: input.doubleEntry }).where(eq(crfs.id, before.id));
    await audit(tx, user, ctx.clock(), [
      {
        studyId: access.studyId,
        crfId: before.id,
        action: 'study.crf.double_entry',
        oldValue: before.doubleEntry,
        newValue: input.doubleEntry,
      },
    ]);
  });
}

/** The study's forms set to double entry (the CRF list's 双份录入 switch). */
export async function doubleEntryForms(ctx: AppContext, access: StudyAccess): Promise<number[]> {
  const rows = await ctx.db
    .select({ id: crfs.id })
    .from(crfs)
    .where(and(eq(crfs.studyId, access.studyId), eq(crfs.doubleEntry, true)))
    .orderBy(asc(crfs.id));
  return rows.map((r) => r.id);
}

/** The form page's own save is refused on a double-entry form: its values come from the two entries' reconciliation. */
export async function refuseDirectSave(db: Db, crfId: number) {
  const [crf] = await db.select({ doubleEntry: crfs.doubleEntry }).from(crfs).where(eq(crfs.id, crfId));
  if (crf?.doubleEntry) {
    throw AppError.conflict('double_entry.direct_save', DOUBLE_ENTRY_MSG.directSaveRefused);
  }
}

/**
 * The patient's casebook and the form, in the caller's study and site, and the record named (a live record of that
 * form of that casebook). Another study's patient or form reads as one that does not exist.
 */
async function instanceOf(db: Db, access: StudyAccess, instance: Instance) {
  const [found] = await db
    .select({
      studyId: subjectRecords.studyId,
      siteId: subjects.deptId,
      doubleEntry: crfs.doubleEntry,
      currentVersion: crfs.currentVersion,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(crfs, and(eq(crfs.id, instance.crfId), eq(crfs.studyId, subjectRecords.studyId)))
    .where(and(eq(subjectRecords.id, instance.subjectRecordId), isNull(subjectRecords.deletedAt)));
  if (!found || found.studyId !== access.studyId) throw AppError.notFound('subject.not_found', '患者不存在');
  if (!seesSite(access, found.siteId)) throw otherSiteRefusal();
  let crfVersion = found.currentVersion;
  if (instance.crfDataRecordId) {
    const [record] = await db
      .select({ crfVersion: crfDataRecords.crfVersion })
      .from(crfDataRecords)
      .where(
        and(
          eq(crfDataRecords.id, instance.crfDataRecordId),
          eq(crfDataRecords.subjectRecordId, instance.subjectRecordId),
          eq(crfDataRecords.crfId, instance.crfId),
          isNull(crfDataRecords.deletedAt),
        ),
      );
    if (!record) throw AppError.notFound('crf_data.not_found', '表单记录不存在');
    crfVersion = record.crfVersion;
  }
  return { studyId: found.studyId, doubleEntry: found.doubleEntry, crfVersion };
}

/** The open (not yet reconciled) entries of a form instance, entry 1 first; locked when a change follows. */
async function openEntries(db: Db, instance: Instance, forUpdate = false) {
  const query = db
    .select()
    .from(doubleEntries)
    .where(
      and(
        eq(doubleEntries.subjectRecordId, instance.subjectRecordId),
        eq(doubleEntries.crfId, instance.crfId),
        sql`coalesce(${doubleEntries.crfDataRecordId}, 0) = ${instance.crfDataRecordId ?? 0}`,
        isNull(doubleEntries.reconciledAt),
      ),
    )
    .orderBy(asc(doubleEntries.entryNo));
  return forUpdate ? query.for('update') : query;
}

const lockTarget = (studyId: number, instance: Instance) => ({
  studyId,
  subjectRecordId: instance.subjectRecordId,
  crfDataRecordId: instance.crfDataRecordId ?? undefined,
});

/** What a user may reconcile: holds 双录入核对 and typed neither entry. */
const reconcilerRefusal = (access: StudyAccess, user: CurrentUser, entries: readonly Entry[]) => {
  if (!hasStudyPermission(access, RECONCILE)) return AppError.forbidden();
  if (entries.some((e) => e.userId === user.userId)) {
    return AppError.forbidden('double_entry.reconciler_entered', DOUBLE_ENTRY_MSG.reconcilerIsEnterer);
  }
  return null;
};

/**
 * The caller's own entry of a form instance and how far the pair is. Blind: the other entry's values are never in
 * the answer, only that it exists, whose it is and whether it is done.
 */
export async function myEntry(ctx: AppContext, user: CurrentUser, access: StudyAccess, query: Instance) {
  if (!canViewCrf(access, query.crfId)) throw AppError.forbidden();
  const found = await instanceOf(ctx.db, access, query);
  const entries = found.doubleEntry ? await openEntries(ctx.db, query) : [];
  const mine = entries.find((e) => e.userId === user.userId);
  const mayEnter = hasStudyPermission(access, crfKey(query.crfId, 'save'));
  const nextEntryNo = mine ? mine.entryNo : !mayEnter || entries.length >= 2 ? null : entries[0]?.entryNo === 1 ? 2 : 1;
  return {
    doubleEntry: found.doubleEntry,
    entry: mine ? present(mine) : null,
    nextEntryNo: found.doubleEntry ? nextEntryNo : null,
    pair: entries.map((e) => ({ entryNo: e.entryNo, state: present(e).state, userName: e.userName })),
    mayReconcile: found.doubleEntry && reconcilerRefusal(access, user, entries) === null,
  };
}

/** Saves the caller's entry: the first user to start is entry 1, a different user entry 2; nobody makes both. */
export async function saveEntry(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: DoubleEntrySaveBody) {
  if (!hasStudyPermission(access, crfKey(input.crfId, 'save'))) throw AppError.forbidden();
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const found = await instanceOf(tx, access, input);
    if (!found.doubleEntry) throw notDoubleEntry();
    await assertWritable(tx, lockTarget(found.studyId, input));
    const entries = await openEntries(tx, input, true);
    const mine = entries.find((e) => e.userId === user.userId);
    const missing = input.missing ?? mine?.missing ?? {};
    if (input.missing) await checkMarks(ctx, tx, found, input.crfId, input.missing, mine?.missing ?? {});
    let row: Entry;
    if (mine) {
      if (mine.state === 'done') throw AppError.conflict('double_entry.done', DOUBLE_ENTRY_MSG.entryDone);
      [row] = (await tx
        .update(doubleEntries)
        .set({ values: input.values, missing, updatedAt: now })
        .where(eq(doubleEntries.id, mine.id))
        .returning()) as [Entry];
    } else {
      if (entries.length >= 2) throw AppError.conflict('double_entry.taken', DOUBLE_ENTRY_MSG.bothEntriesTaken);
      const actor = actorOf(user);
      // A concurrent first save of the same number loses to the open-entry unique index: answered as taken.
      const inserted = await tx
        .insert(doubleEntries)
        .values({
          studyId: found.studyId,
          subjectRecordId: input.subjectRecordId,
          crfId: input.crfId,
          crfVersion: found.crfVersion,
          crfDataRecordId: input.crfDataRecordId ?? null,
          entryNo: entries[0]?.entryNo === 1 ? 2 : 1,
          values: input.values,
          missing,
          userId: actor.userId,
          userName: actor.userName,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted[0]) throw AppError.conflict('double_entry.taken', DOUBLE_ENTRY_MSG.bothEntriesTaken);
      row = inserted[0];
    }
    const before: Pick<Entry, 'values' | 'missing'> = mine ?? { values: {}, missing: {} };
    const changed = [
      ...new Set([...changedItemNames(before.values, row.values), ...changedMarkNames(before.missing, row.missing)]),
    ];
    const base = auditOfEntry(row, 'double_entry.save');
    const rows: AuditEntry[] = changed.map((itemName) => ({
      ...base,
      itemName,
      oldValue: before.missing[itemName] ? { missing: before.missing[itemName] } : (before.values[itemName] ?? null),
      newValue: row.missing[itemName] ? { missing: row.missing[itemName] } : (row.values[itemName] ?? null),
    }));
    // Starting an entry is a step of its own even when nothing was typed yet.
    if (rows.length === 0 && !mine) rows.push(base);
    await audit(tx, user, now, rows);
    return present(row);
  });
}

/**
 * The entry's 缺失原因 marks, as far as they can be judged before the record exists: each on an item of the form and
 * with one of the study's codes (a code kept from the stored entry stays). The rest (hidden items, a value beside a
 * mark) is the write path's on reconcile, as on a save.
 */
async function checkMarks(
  ctx: AppContext,
  db: Db,
  found: { studyId: number; crfVersion: number },
  crfId: number,
  marks: Readonly<Record<string, string>>,
  stored: Readonly<Record<string, string>>,
) {
  if (Object.keys(marks).length === 0) return;
  const codes = new Set((await getMissingCodes({ ...ctx, db }, found.studyId)).map((c) => c.code));
  const nodes = nodesOf(await definitionOf(db, crfId, found.crfVersion));
  for (const [name, code] of Object.entries(marks)) {
    if (!nodes.has(name)) {
      throw AppError.badRequest('double_entry.missing_item', MISSING_MSG.notMarkable(name), { itemName: name });
    }
    if (!codes.has(code) && stored[name] !== code) {
      throw AppError.badRequest('double_entry.missing_code', MISSING_MSG.unknownCode(code), { itemName: name });
    }
  }
}

/** An audit row of an entry: which entry (第一次录入 / 第二次录入) is its reason text. */
function auditOfEntry(row: Entry, action: AuditEntry['action']): AuditEntry {
  return {
    studyId: row.studyId,
    subjectRecordId: row.subjectRecordId,
    crfDataRecordId: row.crfDataRecordId,
    crfId: row.crfId,
    crfVersion: row.crfVersion,
    action,
    reason: DOUBLE_ENTRY_LABELS[row.entryNo as 1 | 2] ?? null,
  };
}

/** The caller's entry is finished: it takes no more changes and may be compared once the other one is too. */
export async function markDone(ctx: AppContext, user: CurrentUser, access: StudyAccess, input: DoubleEntryDoneBody) {
  if (!hasStudyPermission(access, crfKey(input.crfId, 'save'))) throw AppError.forbidden();
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const found = await instanceOf(tx, access, input);
    if (!found.doubleEntry) throw notDoubleEntry();
    await assertWritable(tx, lockTarget(found.studyId, input));
    const mine = (await openEntries(tx, input, true)).find((e) => e.userId === user.userId);
    if (!mine) throw AppError.notFound('double_entry.not_found', DOUBLE_ENTRY_MSG.entryNotFound);
    if (mine.state === 'done') return present(mine);
    const [row] = await tx
      .update(doubleEntries)
      .set({ state: 'done', updatedAt: now })
      .where(eq(doubleEntries.id, mine.id))
      .returning();
    await audit(tx, user, now, [{ ...auditOfEntry(row!, 'double_entry.done'), newValue: 'done' }]);
    return present(row!);
  });
}

/** Both entries, done, of a double-entry form, for a reconciler who typed neither. */
async function pairToReconcile(db: Db, user: CurrentUser, access: StudyAccess, instance: Instance, lock: boolean) {
  if (!canViewCrf(access, instance.crfId)) throw AppError.forbidden();
  const found = await instanceOf(db, access, instance);
  if (!found.doubleEntry) throw notDoubleEntry();
  const entries = await openEntries(db, instance, lock);
  const refused = reconcilerRefusal(access, user, entries);
  if (refused) throw refused;
  const [one, two] = entries;
  if (!one || !two || one.state !== 'done' || two.state !== 'done') {
    throw AppError.conflict('double_entry.not_done', DOUBLE_ENTRY_MSG.notBothDone);
  }
  return { found, one, two };
}

/** Both entries side by side and the items they differ on (双录入核对). */
export async function compare(ctx: AppContext, user: CurrentUser, access: StudyAccess, query: Instance) {
  const { one, two } = await pairToReconcile(ctx.db, user, access, query, false);
  // In the form's own order (jsonb keeps keys in its own), items the version does not know last.
  const order = [...nodesOf(await definitionOf(ctx.db, one.crfId, one.crfVersion)).keys()];
  const at = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const differences = compareDoubleEntries(one, two).sort((a, b) => at(a.itemName) - at(b.itemName));
  return { entry1: present(one), entry2: present(two), differences };
}

/**
 * Writes the reconciled values to the form record through the one write path, then marks both entries reconciled
 * with the decisions kept; each decision and the reconciliation itself are audit rows. One transaction: a refusal
 * of the write path (a lock, the engine's validation) leaves the entries open.
 */
export async function reconcile(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: DoubleEntryReconcileBody,
) {
  return ctx.db.transaction(async (tx) => {
    const { one, two } = await pairToReconcile(tx, user, access, input, true);
    const result = reconcileDoubleEntries(one, two, input.decisions);
    if (!result.ok) {
      const { kind, itemNames } = result.problem;
      throw AppError.badRequest(
        kind === 'undecided' ? 'double_entry.undecided' : 'double_entry.not_a_difference',
        kind === 'undecided' ? DOUBLE_ENTRY_MSG.undecided : DOUBLE_ENTRY_MSG.notADifference,
        { itemNames },
      );
    }
    const [record] = input.crfDataRecordId
      ? await tx
          .select({ version: crfDataRecords.version })
          .from(crfDataRecords)
          .where(eq(crfDataRecords.id, input.crfDataRecordId))
      : [];
    const written = await writeForm(
      tx,
      ctx,
      { kind: 'staff', user, access },
      {
        subjectRecordId: input.subjectRecordId,
        crfId: input.crfId,
        crfDataRecordId: input.crfDataRecordId ?? null,
        version: record?.version ?? 0,
        values: result.values,
        missing: result.missing,
        // The record's trail says why its items changed; a submitted record's change needs this reason anyway.
        reason: input.reason?.trim() || '双份录入核对',
      },
    );
    const now = ctx.clock();
    const actor = actorOf(user);
    const decisions = Object.fromEntries(
      result.differences.map((d) => [
        d.itemName,
        {
          entry1: d.missing1 ? { missing: d.missing1 } : d.entry1,
          entry2: d.missing2 ? { missing: d.missing2 } : d.entry2,
          chosen: input.decisions[d.itemName],
          decidedBy: actor,
        },
      ]),
    );
    await tx
      .update(doubleEntries)
      .set({
        reconciledAt: now,
        reconciledBy: user.userId,
        decisions,
        crfDataRecordId: written.crfDataRecordId,
        updatedAt: now,
      })
      .where(sql`${doubleEntries.id} in (${one.id}, ${two.id})`);
    const base = {
      studyId: one.studyId,
      subjectRecordId: one.subjectRecordId,
      crfDataRecordId: written.crfDataRecordId,
      crfId: one.crfId,
      crfVersion: one.crfVersion,
    };
    await audit(tx, user, now, [
      ...result.differences.map((d): AuditEntry => ({
        ...base,
        action: 'double_entry.decision',
        itemName: d.itemName,
        oldValue: { entry1: decisions[d.itemName]!.entry1, entry2: decisions[d.itemName]!.entry2 },
        newValue: input.decisions[d.itemName],
      })),
      {
        ...base,
        action: 'double_entry.reconcile',
        newValue: { entry1: one.userName, entry2: two.userName, differences: result.differences.length },
      },
    ]);
    return {
      crfDataRecordId: written.crfDataRecordId,
      version: written.version,
      state: written.state,
      differences: result.differences.length,
    };
  });
}
