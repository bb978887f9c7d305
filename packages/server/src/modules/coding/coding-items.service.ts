import { and, asc, count, desc, eq, inArray, or, sql } from 'drizzle-orm';
import {
  CODING_MSG,
  codingApprovalRefusal,
  formValueItems,
  matchKey,
  meddraCodingOf,
  whodrugCodingOf,
  type CodedItemRow,
  type CodingApproveBody,
  type CodingCodeBody,
  type CodingItemsBody,
  type CodingListQuery,
  type CodingSearchHit,
  type CodingSearchQuery,
  type CodingState,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  codedItems,
  codingTerms,
  crfDataRecords,
  crfs,
  departments,
  studies,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf } from '../study/crf-definitions.js';
import {
  activeDictionary,
  codedItemNotFound,
  codedItemSettings,
  codedItemsOfForms,
  codingAudit,
  codingChange,
  codingLevel,
  codingOfTerm,
  dictionaryTerms,
  kindOf,
  noDictionary,
  placeOf,
  ptsByCode,
  visibleRows,
  type CodedItemOfForm,
} from './coding-shared.js';

/**
 * A study's coded items (医学编码, issue 37): which form items are coded, the coding list, the dictionary search, a
 * coder's code and its approval. Site scope: a coded item is read and written only by callers who see its patient's
 * site, and only for forms they may view.
 */

/** Item types whose value is one free text a coder can code. */
const TEXT_TYPES = new Set(['input', 'textarea', 'text']);
const SEARCH_LIMIT = 50;

// ---- The coded-items setting ----

export async function getCodedItemSettings(ctx: AppContext, access: StudyAccess) {
  return codedItemSettings(ctx.db, access.studyId);
}

/** Sets the study's coded items: each a free-text item of the form's current version (a list's columns are not). */
export async function setCodedItems(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: CodingItemsBody) {
  const now = ctx.clock();
  const unique = [...new Map(body.items.map((i) => [`${i.crfId}\u0000${i.itemName}`, i])).values()];
  return ctx.db.transaction(async (tx) => {
    const forms = new Map(
      (
        await tx
          .select({ id: crfs.id, version: crfs.currentVersion })
          .from(crfs)
          .where(and(eq(crfs.studyId, access.studyId), inArray(crfs.id, [0, ...unique.map((i) => i.crfId)])))
      ).map((f) => [f.id, f.version]),
    );
    for (const item of unique) {
      const version = forms.get(item.crfId);
      if (version === undefined) throw AppError.badRequest('coding.form_not_found', CODING_MSG.formNotFound);
      const node = formValueItems(await definitionOf(tx, item.crfId, version)).find((n) => n.name === item.itemName);
      if (!node || !TEXT_TYPES.has(node.type)) {
        throw AppError.badRequest('coding.item_not_in_form', `${CODING_MSG.itemNotInForm}：${item.itemName}`);
      }
    }
    const [before] = await tx
      .select({ codedItems: studies.codedItems })
      .from(studies)
      .where(eq(studies.studyId, access.studyId))
      .for('update');
    await tx.update(studies).set({ codedItems: unique }).where(eq(studies.studyId, access.studyId));
    await audit(tx, user, now, [
      { studyId: access.studyId, action: 'coding.items', oldValue: before?.codedItems ?? [], newValue: unique },
    ]);
    return unique;
  });
}

// ---- The coding list ----

export async function listCodedItems(
  ctx: AppContext,
  access: StudyAccess,
  query: CodingListQuery,
  page: PageRequest,
): Promise<{ list: CodedItemRow[]; total: number }> {
  const where = visibleRows(access, query.state ? eq(codedItems.state, query.state) : undefined);
  const coder = sql<string | null>`(select u.name from users u where u.user_id = ${codedItems.codedBy})`;
  const approver = sql<string | null>`(select u.name from users u where u.user_id = ${codedItems.approvedBy})`;
  const base = () =>
    ctx.db
      .select({
        row: codedItems,
        crfId: crfDataRecords.crfId,
        crfName: crfs.title,
        patientCode: subjects.identificationCode,
        siteName: departments.deptName,
        codedBy: coder,
        approvedBy: approver,
      })
      .from(codedItems)
      .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId))
      .innerJoin(crfs, eq(crfs.id, crfDataRecords.crfId))
      .innerJoin(subjectRecords, eq(subjectRecords.id, codedItems.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .leftJoin(departments, eq(departments.deptId, subjects.deptId));
  const counted = ctx.db
    .select({ total: count() })
    .from(codedItems)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId))
    .where(where);
  const { list, total } = await pagedQuery(counted, base().where(where).orderBy(asc(codedItems.id)).$dynamic(), page);
  const settings = await codedItemSettings(ctx.db, access.studyId);
  return {
    total,
    list: list.map((r) => ({
      id: r.row.id,
      subjectRecordId: r.row.subjectRecordId,
      crfDataRecordId: r.row.crfDataRecordId,
      patientCode: r.patientCode,
      siteName: r.siteName,
      crfId: r.crfId,
      crfName: r.crfName,
      itemName: r.row.itemName,
      kind: kindOf(settings, r.crfId, r.row.itemName),
      verbatim: r.row.verbatim,
      state: r.row.state as CodingState,
      coding: r.row.coding ?? null,
      codedBy: r.codedBy,
      codedById: r.row.codedBy,
      codedAt: r.row.codedAt ? new Date(r.row.codedAt).toISOString() : null,
      approvedBy: r.approvedBy,
      approvedAt: r.row.approvedAt ? new Date(r.row.approvedAt).toISOString() : null,
    })),
  };
}

// ---- Search and manual coding ----

/** Terms to code with (LLTs or drug names) whose key starts with or contains the query's, or whose code is it. */
export async function searchTerms(
  ctx: AppContext,
  access: StudyAccess,
  query: CodingSearchQuery,
): Promise<CodingSearchHit[]> {
  const dictionary = await activeDictionary(ctx.db, access.studyId, query.kind);
  if (!dictionary) throw noDictionary();
  const key = matchKey(query.q);
  const like = `%${key.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
  const prefix = `${key.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
  const rows = await dictionaryTerms(
    ctx.db,
    dictionary.id,
    eq(codingTerms.level, codingLevel(query.kind)),
    or(eq(codingTerms.code, query.q.trim()), key ? sql`${codingTerms.matchKey} like ${like}` : undefined),
  )
    // Exact first, then prefix, then the rest; current before non-current; shorter names first.
    .orderBy(
      sql`case when ${codingTerms.matchKey} = ${key} or ${codingTerms.code} = ${query.q.trim()} then 0
        when ${codingTerms.matchKey} like ${prefix} then 1 else 2 end`,
      desc(codingTerms.current),
      sql`length(${codingTerms.name})`,
      asc(codingTerms.code),
    )
    .limit(SEARCH_LIMIT);
  const pts = await ptsByCode(
    ctx.db,
    dictionary.id,
    query.kind,
    rows.map((r) => r.parentCode),
  );
  return rows.map((r) => {
    const pt = pts.get(r.parentCode ?? '');
    return {
      level: r.level,
      code: r.code,
      name: r.name,
      current: r.current,
      path: query.kind === 'meddra' ? (pt ? { ...meddraCodingOf(r, pt) } : {}) : { ...whodrugCodingOf(r) },
    };
  });
}

/** The coded items the caller sees, locked for the change, with their forms; 404 when one is not theirs. */
async function writableItems(tx: Db, access: StudyAccess, ids: readonly number[]): Promise<CodedItemOfForm[]> {
  const rows = await codedItemsOfForms(tx)
    .where(visibleRows(access, inArray(codedItems.id, [...ids])))
    .for('update', { of: codedItems });
  if (rows.length !== new Set(ids).size) throw codedItemNotFound();
  for (const r of rows) {
    await assertWritable(tx, {
      studyId: access.studyId,
      subjectRecordId: r.row.subjectRecordId,
      crfDataRecordId: r.row.crfDataRecordId,
    });
  }
  return rows;
}

export async function codeManually(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: CodingCodeBody) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const [item] = (await writableItems(tx, access, [body.codedItemId])) as [CodedItemOfForm];
    const { row } = item;
    const kind = kindOf(await codedItemSettings(tx, access.studyId), item.crfId, row.itemName);
    if (!kind) throw codedItemNotFound();
    const dictionary = await activeDictionary(tx, access.studyId, kind);
    if (!dictionary) throw noDictionary();
    const candidates = await dictionaryTerms(
      tx,
      dictionary.id,
      eq(codingTerms.level, codingLevel(kind)),
      eq(codingTerms.code, body.termCode),
    ).orderBy(asc(codingTerms.id));
    // A drug's several names share its code: the name the verbatim matches, else its first.
    const term = candidates.find((c) => c.matchKey === matchKey(row.verbatim)) ?? candidates[0];
    const coding = term ? await codingOfTerm(tx, dictionary.id, kind, term) : null;
    if (!coding) throw AppError.badRequest('coding.term_not_found', CODING_MSG.termNotFound);
    const [saved] = await tx
      .update(codedItems)
      .set({
        dictionaryId: dictionary.id,
        state: 'manual',
        coding,
        codedBy: user.userId,
        codedAt: now,
        approvedBy: null,
        approvedAt: null,
        updatedAt: now,
      })
      .where(eq(codedItems.id, row.id))
      .returning();
    await audit(tx, user, now, [codingChange(placeOf(item), 'coding.code', codingAudit(row), codingAudit(saved!))]);
    return { id: saved!.id, state: saved!.state as CodingState, coding };
  });
}

export async function approveCoding(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: CodingApproveBody) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const rows = await writableItems(tx, access, body.codedItemIds);
    const refusals = rows.map((r) =>
      codingApprovalRefusal({ state: r.row.state as CodingState, codedById: r.row.codedBy }, user.userId),
    );
    if (refusals.includes('not_coded')) throw AppError.badRequest('coding.not_coded', CODING_MSG.notCoded);
    // A second pair of eyes (编码审核): the coder of a manual code never approves it, whatever keys they hold.
    if (refusals.includes('own_code')) throw AppError.forbidden('coding.own_code', CODING_MSG.ownCode);
    const pending = rows.filter((r) => r.row.state !== 'approved');
    if (pending.length === 0) return { approved: 0 };
    await tx
      .update(codedItems)
      .set({ state: 'approved', approvedBy: user.userId, approvedAt: now, updatedAt: now })
      .where(
        inArray(
          codedItems.id,
          pending.map((r) => r.row.id),
        ),
      );
    await audit(
      tx,
      user,
      now,
      pending.map((item) =>
        codingChange(
          placeOf(item),
          'coding.approve',
          { state: item.row.state, coding: item.row.coding },
          // Who coded and who approved, so the trail shows the two pairs of eyes.
          { state: 'approved', coding: item.row.coding, codedBy: item.row.codedBy, approvedBy: user.userId },
        ),
      ),
    );
    return { approved: pending.length };
  });
}
