import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import {
  CODING_MSG,
  meddraCodingOf,
  whodrugCodingOf,
  type CodingDictionary,
  type CodingDictionaryQuery,
  type CodingKind,
  type CodingUpgradeImpact,
  type DictionaryTerm,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { codedItems, codingDictionaries, codingTerms, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { autoCodeWaiting } from './coding-auto.service.js';
import {
  codedItemsOfForms,
  codingLevel,
  dictionaryTerms,
  ptsByCode,
  visibleRows,
  type Coding,
} from './coding-shared.js';

/**
 * A study's coding dictionaries (医学编码, issue 37): loaded from the licensed files, one active per kind, and what
 * a dictionary upgrade changes in the codes made against an earlier one.
 */

/** Terms per insert: 7 parameters a row, well under PostgreSQL's 65,535. */
const TERM_BATCH = 1000;

const dictionaryNotFound = () => AppError.notFound('coding.dictionary_not_found', CODING_MSG.dictionaryNotFound);

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
    await activateDictionary(tx, studyId, query.kind, row!.id);
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

/**
 * Makes one dictionary the study's active one of its kind, inside the caller's transaction: the old one off, then the
 * new one on, so the partial unique index (coding_dictionaries_one_active) never sees two. Two loads at once would
 * each switch off what they see (not the other's uncommitted row) and the second to commit would violate the index;
 * a transaction-scoped advisory lock per study and kind makes the second wait until the first has committed, and its
 * switch-off then sees the first's row.
 */
export async function activateDictionary(tx: Db, studyId: number, kind: CodingKind, dictionaryId: number) {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext('coding_dictionaries_one_active'), hashtext(${`${studyId}:${kind}`}))`,
  );
  await tx
    .update(codingDictionaries)
    .set({ active: false })
    .where(
      and(
        eq(codingDictionaries.studyId, studyId),
        eq(codingDictionaries.kind, kind),
        eq(codingDictionaries.active, true),
      ),
    );
  await tx.update(codingDictionaries).set({ active: true }).where(eq(codingDictionaries.id, dictionaryId));
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
  const rows = await codedItemsOfForms(ctx.db)
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
  const terms = await dictionaryTerms(
    ctx.db,
    dictionary.id,
    eq(codingTerms.level, codingLevel(kind)),
    inArray(codingTerms.code, ['', ...codes]),
  );
  const byCode = new Map(terms.map((t) => [t.code, t]));
  const pts = await ptsByCode(
    ctx.db,
    dictionary.id,
    kind,
    terms.map((t) => t.parentCode),
  );
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
