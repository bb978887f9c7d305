import { and, asc, count, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import {
  chooseAutoCode,
  CODING_MSG,
  formValueItems,
  matchKey,
  meddraCodingOf,
  MeddraFormatError,
  MeddraMissingFileError,
  meddraTerms,
  whodrugCodingOf,
  WhodrugFormatError,
  whodrugTerms,
  type CodedItemRow,
  type CodedItemSetting,
  type CodingApproveBody,
  type CodingCodeBody,
  type CodingDictionary,
  type CodingDictionaryQuery,
  type CodingItemsBody,
  type CodingKind,
  type CodingListQuery,
  type CodingSearchHit,
  type CodingSearchQuery,
  type CodingState,
  type CodingUpgradeImpact,
  type DictionaryTerm,
  type MeddraFile,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  codedItems,
  codingDictionaries,
  codingTerms,
  crfDataRecords,
  crfs,
  departments,
  studies,
  subjectRecords,
  subjects,
  users,
} from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';
import { recordInCallerSites } from '../../shared/patient-site.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { audit, auditSystem, type AuditEntry } from '../audit/audit.service.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf } from '../study/crf-definitions.js';

/**
 * 医学编码 (issue 37): a study's dictionaries (loaded from the licensed files, one active per kind), its coded items,
 * the coding of each verbatim (auto on an exact match of the folded text, else a coder's), approval, and what a
 * dictionary upgrade changes. Every change of a code is an audit row with the old and the new coding. Site scope:
 * a coded item is read and written only by callers who see its patient's site, and only for forms they may view.
 */

/** Terms per insert: 7 parameters a row, well under PostgreSQL's 65,535. */
const TERM_BATCH = 1000;
/** Item types whose value is one free text a coder can code. */
const TEXT_TYPES = new Set(['input', 'textarea', 'text']);

type Coding = Record<string, unknown>;

const dictionaryNotFound = () => AppError.notFound('coding.dictionary_not_found', CODING_MSG.dictionaryNotFound);
const codedItemNotFound = () => AppError.notFound('coding.item_not_found', CODING_MSG.codedItemNotFound);

// ---- Dictionaries ----

/** The terms of the uploaded files (name → text), or a 400 naming what is wrong with them. */
export function termsOfFiles(kind: CodingKind, files: ReadonlyMap<string, string>): DictionaryTerm[] {
  if (files.size === 0) throw AppError.badRequest('coding.no_files', CODING_MSG.noFiles);
  try {
    if (kind === 'meddra') {
      return meddraTerms(Object.fromEntries(files) as Partial<Record<MeddraFile, string>>);
    }
    const csv = [...files.entries()].find(([name]) => name.endsWith('.csv'))?.[1] ?? [...files.values()][0]!;
    return whodrugTerms(csv);
  } catch (e) {
    if (e instanceof MeddraFormatError || e instanceof MeddraMissingFileError || e instanceof WhodrugFormatError) {
      throw AppError.badRequest('coding.bad_file', `${CODING_MSG.badFile}：${e.message}`);
    }
    throw e;
  }
}

/**
 * Loads a dictionary's terms in one transaction and makes it the study's active one of its kind (the previous one
 * stays, inactive, for the upgrade report and the codes made against it); then codes the uncoded items it can.
 */
export async function loadDictionary(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  query: CodingDictionaryQuery,
  terms: readonly DictionaryTerm[],
) {
  const now = ctx.clock();
  const studyId = access.studyId;
  const dictionary = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(codingDictionaries)
      .values({
        studyId,
        kind: query.kind,
        version: query.version,
        language: query.language,
        termCount: terms.length,
        loadedBy: user.userId,
        loadedAt: now,
      })
      .returning();
    for (let i = 0; i < terms.length; i += TERM_BATCH) {
      await tx.insert(codingTerms).values(
        terms.slice(i, i + TERM_BATCH).map((t) => ({
          studyId,
          dictionaryId: row!.id,
          level: t.level,
          code: t.code,
          name: t.name,
          matchKey: t.matchKey,
          parentCode: t.parentCode,
          current: t.current,
          extra: t.extra,
        })),
      );
    }
    await tx
      .update(codingDictionaries)
      .set({ active: false })
      .where(and(eq(codingDictionaries.studyId, studyId), eq(codingDictionaries.kind, query.kind)));
    await tx.update(codingDictionaries).set({ active: true }).where(eq(codingDictionaries.id, row!.id));
    await audit(tx, user, now, [
      {
        studyId,
        action: 'coding.dictionary',
        newValue: {
          dictionaryId: row!.id,
          kind: query.kind,
          version: query.version,
          language: query.language,
          termCount: terms.length,
        },
      },
    ]);
    return row!;
  });
  await autoCodeWaiting(ctx, studyId, query.kind);
  return presentDictionary({ ...dictionary, active: true }, user.name);
}

function presentDictionary(row: typeof codingDictionaries.$inferSelect, loadedBy: string | null): CodingDictionary {
  return {
    id: row.id,
    kind: row.kind as CodingKind,
    version: row.version,
    language: row.language,
    active: row.active,
    termCount: row.termCount,
    loadedBy,
    loadedAt: new Date(row.loadedAt).toISOString(),
  };
}

export async function listDictionaries(ctx: AppContext, access: StudyAccess): Promise<CodingDictionary[]> {
  const rows = await ctx.db
    .select({ d: codingDictionaries, loadedBy: users.name })
    .from(codingDictionaries)
    .leftJoin(users, eq(users.userId, codingDictionaries.loadedBy))
    .where(eq(codingDictionaries.studyId, access.studyId))
    .orderBy(desc(codingDictionaries.loadedAt), desc(codingDictionaries.id));
  return rows.map((r) => presentDictionary(r.d, r.loadedBy));
}

async function activeDictionary(db: Db, studyId: number, kind: CodingKind) {
  const [row] = await db
    .select()
    .from(codingDictionaries)
    .where(
      and(
        eq(codingDictionaries.studyId, studyId),
        eq(codingDictionaries.kind, kind),
        eq(codingDictionaries.active, true),
      ),
    );
  return row;
}

// ---- The study's coded items ----

async function codedItemSettings(db: Db, studyId: number): Promise<CodedItemSetting[]> {
  const [study] = await db.select({ codedItems: studies.codedItems }).from(studies).where(eq(studies.studyId, studyId));
  return study?.codedItems ?? [];
}

const kindOf = (settings: readonly CodedItemSetting[], crfId: number, itemName: string) =>
  settings.find((s) => s.crfId === crfId && s.itemName === itemName)?.kind ?? null;

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

// ---- Coding on save ----

/**
 * After a save (the outbox's record.saved/submitted): each coded item of the record gets its row with the verbatim
 * as saved. An unchanged verbatim keeps its codes; a changed one is reset to uncoded and auto-coded when it matches;
 * an emptied one loses its row. Works from the record as stored, so a repeated or late delivery changes nothing.
 */
export async function reactToRecordSave(
  ctx: AppContext,
  event: Extract<DomainEvent, { type: 'record.saved' | 'record.submitted' }>,
): Promise<void> {
  const settings = (await codedItemSettings(ctx.db, event.studyId)).filter((s) => s.crfId === event.crfId);
  if (settings.length === 0) return;
  const now = ctx.clock();
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, event.recordId), eq(crfDataRecords.studyId, event.studyId)))
      .for('update');
    if (!record || record.deletedAt) return;
    const existing = new Map(
      (await tx.select().from(codedItems).where(eq(codedItems.crfDataRecordId, record.id))).map((r) => [r.itemName, r]),
    );
    const entries: AuditEntry[] = [];
    for (const setting of settings) {
      const raw = record.values[setting.itemName];
      const verbatim = typeof raw === 'string' ? raw.trim() : '';
      const row = existing.get(setting.itemName);
      const entry = {
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        crfVersion: record.crfVersion,
        action: 'coding.code' as const,
        itemName: setting.itemName,
      };
      if (row && row.verbatim === verbatim) continue;
      if (!verbatim) {
        if (row) {
          await tx.delete(codedItems).where(eq(codedItems.id, row.id));
          entries.push({ ...entry, oldValue: codingAudit(row), newValue: null });
        }
        continue;
      }
      const auto = await autoCode(tx, record.studyId, setting.kind, verbatim);
      const values = {
        verbatim,
        dictionaryId: auto?.dictionaryId ?? null,
        state: (auto ? 'auto' : 'uncoded') satisfies CodingState,
        coding: auto?.coding ?? null,
        codedBy: null,
        codedAt: auto ? now : null,
        approvedBy: null,
        approvedAt: null,
        updatedAt: now,
      };
      const [saved] = row
        ? await tx.update(codedItems).set(values).where(eq(codedItems.id, row.id)).returning()
        : await tx
            .insert(codedItems)
            .values({
              studyId: record.studyId,
              subjectRecordId: record.subjectRecordId,
              crfDataRecordId: record.id,
              itemName: setting.itemName,
              ...values,
            })
            .returning();
      entries.push({ ...entry, oldValue: row ? codingAudit(row) : null, newValue: codingAudit(saved!) });
    }
    if (entries.length > 0) await auditSystem(tx, now, entries);
  });
}

/** What the trail keeps of a coding: the verbatim, its state and its codes. */
const codingAudit = (row: Pick<typeof codedItems.$inferSelect, 'verbatim' | 'state' | 'coding'>) => ({
  verbatim: row.verbatim,
  state: row.state,
  coding: row.coding,
});

/** The coding of an exact match of the verbatim's key in the active dictionary of its kind, or null. */
async function autoCode(db: Db, studyId: number, kind: CodingKind, verbatim: string) {
  const dictionary = await activeDictionary(db, studyId, kind);
  if (!dictionary) return null;
  const candidates = await db
    .select()
    .from(codingTerms)
    .where(
      and(
        eq(codingTerms.dictionaryId, dictionary.id),
        eq(codingTerms.matchKey, matchKey(verbatim)),
        inArray(codingTerms.level, kind === 'meddra' ? ['llt'] : ['drug']),
      ),
    );
  const chosen = chooseAutoCode(kind, candidates);
  if (!chosen) return null;
  const coding = await codingOfTerm(db, dictionary.id, kind, chosen);
  return coding ? { dictionaryId: dictionary.id, coding } : null;
}

async function codingOfTerm(
  db: Db,
  dictionaryId: number,
  kind: CodingKind,
  term: typeof codingTerms.$inferSelect,
): Promise<Coding | null> {
  if (kind === 'whodrug') return { ...whodrugCodingOf(term) };
  const [pt] = await db
    .select()
    .from(codingTerms)
    .where(
      and(
        eq(codingTerms.dictionaryId, dictionaryId),
        eq(codingTerms.level, 'pt'),
        eq(codingTerms.code, term.parentCode ?? ''),
      ),
    );
  return pt ? { ...meddraCodingOf(term, pt) } : null;
}

/** Codes the study's uncoded items of a kind against its (newly) active dictionary: a load catches up on them. */
async function autoCodeWaiting(ctx: AppContext, studyId: number, kind: CodingKind) {
  const settings = (await codedItemSettings(ctx.db, studyId)).filter((s) => s.kind === kind);
  if (settings.length === 0) return;
  const waiting = await ctx.db
    .select({ row: codedItems, crfId: crfDataRecords.crfId, crfVersion: crfDataRecords.crfVersion })
    .from(codedItems)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId))
    .where(and(eq(codedItems.studyId, studyId), eq(codedItems.state, 'uncoded')));
  const now = ctx.clock();
  for (const { row, crfId, crfVersion } of waiting) {
    if (kindOf(settings, crfId, row.itemName) !== kind) continue;
    await ctx.db.transaction(async (tx) => {
      const auto = await autoCode(tx, studyId, kind, row.verbatim);
      if (!auto) return;
      const [saved] = await tx
        .update(codedItems)
        .set({ dictionaryId: auto.dictionaryId, state: 'auto', coding: auto.coding, codedAt: now, updatedAt: now })
        .where(and(eq(codedItems.id, row.id), eq(codedItems.state, 'uncoded'), eq(codedItems.verbatim, row.verbatim)))
        .returning();
      if (!saved) return;
      await auditSystem(tx, now, [
        {
          studyId,
          subjectRecordId: row.subjectRecordId,
          crfDataRecordId: row.crfDataRecordId,
          crfId,
          crfVersion,
          action: 'coding.code',
          itemName: row.itemName,
          oldValue: codingAudit(row),
          newValue: codingAudit(saved),
        },
      ]);
    });
  }
}

// ---- The coding list ----

/** The rows the caller may see: the study's, of live records, at the caller's sites, of forms they may view. */
function visibleRows(access: StudyAccess, ...more: Array<SQL | undefined>) {
  const crfIds = viewableCrfIds(access);
  return and(
    eq(codedItems.studyId, access.studyId),
    isNull(crfDataRecords.deletedAt),
    recordInCallerSites(access, codedItems.subjectRecordId),
    crfIds === null ? undefined : inArray(crfDataRecords.crfId, [0, ...crfIds]),
    ...more,
  );
}

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
      approvedBy: r.approvedBy,
    })),
  };
}

// ---- Search and manual coding ----

const SEARCH_LIMIT = 50;

/** Terms to code with (LLTs or drug names) whose key starts with or contains the query's, or whose code is it. */
export async function searchTerms(
  ctx: AppContext,
  access: StudyAccess,
  query: CodingSearchQuery,
): Promise<CodingSearchHit[]> {
  const dictionary = await activeDictionary(ctx.db, access.studyId, query.kind);
  if (!dictionary) throw AppError.badRequest('coding.no_dictionary', CODING_MSG.noDictionary);
  const key = matchKey(query.q);
  const like = `%${key.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
  const prefix = `${key.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
  const rows = await ctx.db
    .select()
    .from(codingTerms)
    .where(
      and(
        eq(codingTerms.dictionaryId, dictionary.id),
        eq(codingTerms.level, query.kind === 'meddra' ? 'llt' : 'drug'),
        or(eq(codingTerms.code, query.q.trim()), key ? sql`${codingTerms.matchKey} like ${like}` : undefined),
      ),
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
  const pts =
    query.kind === 'meddra'
      ? new Map(
          (
            await ctx.db
              .select()
              .from(codingTerms)
              .where(
                and(
                  eq(codingTerms.dictionaryId, dictionary.id),
                  eq(codingTerms.level, 'pt'),
                  inArray(codingTerms.code, ['', ...rows.map((r) => r.parentCode ?? '')]),
                ),
              )
          ).map((p) => [p.code, p]),
        )
      : new Map<string, typeof codingTerms.$inferSelect>();
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

/** One coded item the caller sees, locked for the change, with its form and kind; 404 when it is not theirs. */
async function writableItems(tx: Db, access: StudyAccess, ids: readonly number[]) {
  const rows = await tx
    .select({ row: codedItems, crfId: crfDataRecords.crfId, crfVersion: crfDataRecords.crfVersion })
    .from(codedItems)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId))
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
    const [{ row, crfId, crfVersion }] = (await writableItems(tx, access, [body.codedItemId])) as [
      Awaited<ReturnType<typeof writableItems>>[number],
    ];
    const kind = kindOf(await codedItemSettings(tx, access.studyId), crfId, row.itemName);
    if (!kind) throw codedItemNotFound();
    const dictionary = await activeDictionary(tx, access.studyId, kind);
    if (!dictionary) throw AppError.badRequest('coding.no_dictionary', CODING_MSG.noDictionary);
    const candidates = await tx
      .select()
      .from(codingTerms)
      .where(
        and(
          eq(codingTerms.dictionaryId, dictionary.id),
          eq(codingTerms.level, kind === 'meddra' ? 'llt' : 'drug'),
          eq(codingTerms.code, body.termCode),
        ),
      )
      .orderBy(asc(codingTerms.id));
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
    await audit(tx, user, now, [
      {
        studyId: access.studyId,
        subjectRecordId: row.subjectRecordId,
        crfDataRecordId: row.crfDataRecordId,
        crfId,
        crfVersion,
        action: 'coding.code',
        itemName: row.itemName,
        oldValue: codingAudit(row),
        newValue: codingAudit(saved!),
      },
    ]);
    return { id: saved!.id, state: saved!.state as CodingState, coding };
  });
}

export async function approveCoding(ctx: AppContext, user: CurrentUser, access: StudyAccess, body: CodingApproveBody) {
  const now = ctx.clock();
  return ctx.db.transaction(async (tx) => {
    const rows = await writableItems(tx, access, body.codedItemIds);
    if (rows.some((r) => r.row.state === 'uncoded')) throw AppError.badRequest('coding.not_coded', CODING_MSG.notCoded);
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
      pending.map(({ row, crfId, crfVersion }) => ({
        studyId: access.studyId,
        subjectRecordId: row.subjectRecordId,
        crfDataRecordId: row.crfDataRecordId,
        crfId,
        crfVersion,
        action: 'coding.approve' as const,
        itemName: row.itemName,
        oldValue: { state: row.state, coding: row.coding },
        newValue: { state: 'approved', coding: row.coding },
      })),
    );
    return { approved: pending.length };
  });
}

// ---- Dictionary upgrade ----

/**
 * What a dictionary (usually the newly loaded version) changes in the study's coded items of its kind that were
 * coded against another one: an LLT gone or no longer current, its PT or primary SOC moved; a drug gone or its ATC
 * changed. Nothing is recoded by it: the coder recodes what the report names.
 */
export async function upgradeImpact(
  ctx: AppContext,
  access: StudyAccess,
  dictionaryId: number,
): Promise<CodingUpgradeImpact[]> {
  const [dictionary] = await ctx.db
    .select()
    .from(codingDictionaries)
    .where(and(eq(codingDictionaries.id, dictionaryId), eq(codingDictionaries.studyId, access.studyId)));
  if (!dictionary) throw dictionaryNotFound();
  const kind = dictionary.kind as CodingKind;
  const rows = await ctx.db
    .select({ row: codedItems })
    .from(codedItems)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, codedItems.crfDataRecordId))
    .where(
      visibleRows(
        access,
        ne(codedItems.state, 'uncoded'),
        ne(codedItems.dictionaryId, dictionary.id),
        sql`${codedItems.coding}->>'kind' = ${kind}`,
      ),
    )
    .orderBy(asc(codedItems.id));
  if (rows.length === 0) return [];
  const codes = rows.map((r) => String((r.row.coding ?? {})[kind === 'meddra' ? 'lltCode' : 'drugCode'] ?? ''));
  const terms = await ctx.db
    .select()
    .from(codingTerms)
    .where(
      and(
        eq(codingTerms.dictionaryId, dictionary.id),
        eq(codingTerms.level, kind === 'meddra' ? 'llt' : 'drug'),
        inArray(codingTerms.code, ['', ...codes]),
      ),
    );
  const byCode = new Map(terms.map((t) => [t.code, t]));
  const pts =
    kind === 'meddra'
      ? new Map(
          (
            await ctx.db
              .select()
              .from(codingTerms)
              .where(
                and(
                  eq(codingTerms.dictionaryId, dictionary.id),
                  eq(codingTerms.level, 'pt'),
                  inArray(codingTerms.code, ['', ...terms.map((t) => t.parentCode ?? '')]),
                ),
              )
          ).map((p) => [p.code, p]),
        )
      : new Map<string, typeof codingTerms.$inferSelect>();
  const out: CodingUpgradeImpact[] = [];
  for (const { row } of rows) {
    const before = row.coding ?? {};
    const impact = (reason: CodingUpgradeImpact['reason'], after: Coding | null) =>
      out.push({ codedItemId: row.id, verbatim: row.verbatim, reason, before, after });
    if (kind === 'whodrug') {
      const term = byCode.get(String(before.drugCode));
      if (!term) impact('drug_missing', null);
      else if (whodrugCodingOf(term).atcCode !== before.atcCode) impact('atc_changed', { ...whodrugCodingOf(term) });
      continue;
    }
    const llt = byCode.get(String(before.lltCode));
    const pt = llt ? pts.get(llt.parentCode ?? '') : undefined;
    if (!llt || !pt) {
      impact('llt_missing', null);
      continue;
    }
    const after = { ...meddraCodingOf(llt, pt) };
    if (!llt.current) impact('llt_not_current', after);
    else if (after.ptCode !== before.ptCode) impact('pt_changed', after);
    else if (after.socCode !== before.socCode) impact('soc_changed', after);
  }
  return out;
}
