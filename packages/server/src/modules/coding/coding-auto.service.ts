import { and, eq } from 'drizzle-orm';
import { chooseAutoCode, matchKey, type CodingKind, type CodingState } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { codedItems, codingTerms, crfDataRecords } from '../../db/schema/index.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { auditSystem, type AuditEntry } from '../audit/audit.service.js';
import {
  activeDictionary,
  codedItemSettings,
  codedItemsOfForms,
  codingAudit,
  codingChange,
  codingLevel,
  codingOfTerm,
  dictionaryTerms,
  kindOf,
  placeOf,
  type CodedItemPlace,
} from './coding-shared.js';

/**
 * The system's own coding (医学编码, issue 37): a saved verbatim is coded when the folded text matches a term of the
 * active dictionary exactly, and a newly loaded dictionary catches up on the verbatims still uncoded. Its audit rows
 * name the system as the actor.
 */

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
      const place: CodedItemPlace = {
        studyId: record.studyId,
        subjectRecordId: record.subjectRecordId,
        crfDataRecordId: record.id,
        crfId: record.crfId,
        crfVersion: record.crfVersion,
        itemName: setting.itemName,
      };
      if (row && row.verbatim === verbatim) continue;
      if (!verbatim) {
        if (row) {
          await tx.delete(codedItems).where(eq(codedItems.id, row.id));
          entries.push(codingChange(place, 'coding.code', codingAudit(row), null));
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
      entries.push(codingChange(place, 'coding.code', row ? codingAudit(row) : null, codingAudit(saved!)));
    }
    if (entries.length > 0) await auditSystem(tx, now, entries);
  });
}

/** The coding of an exact match of the verbatim's key in the active dictionary of its kind, or null. */
async function autoCode(db: Db, studyId: number, kind: CodingKind, verbatim: string) {
  const dictionary = await activeDictionary(db, studyId, kind);
  if (!dictionary) return null;
  const candidates = await dictionaryTerms(
    db,
    dictionary.id,
    eq(codingTerms.matchKey, matchKey(verbatim)),
    eq(codingTerms.level, codingLevel(kind)),
  );
  const chosen = chooseAutoCode(kind, candidates);
  if (!chosen) return null;
  const coding = await codingOfTerm(db, dictionary.id, kind, chosen);
  return coding ? { dictionaryId: dictionary.id, coding } : null;
}

/** Codes the study's uncoded items of a kind against its (newly) active dictionary: a load catches up on them. */
export async function autoCodeWaiting(ctx: AppContext, studyId: number, kind: CodingKind) {
  const settings = (await codedItemSettings(ctx.db, studyId)).filter((s) => s.kind === kind);
  if (settings.length === 0) return;
  const waiting = await codedItemsOfForms(ctx.db).where(
    and(eq(codedItems.studyId, studyId), eq(codedItems.state, 'uncoded')),
  );
  const now = ctx.clock();
  for (const item of waiting) {
    const { row } = item;
    if (kindOf(settings, item.crfId, row.itemName) !== kind) continue;
    await ctx.db.transaction(async (tx) => {
      const auto = await autoCode(tx, studyId, kind, row.verbatim);
      if (!auto) return;
      const [saved] = await tx
        .update(codedItems)
        .set({ dictionaryId: auto.dictionaryId, state: 'auto', coding: auto.coding, codedAt: now, updatedAt: now })
        .where(and(eq(codedItems.id, row.id), eq(codedItems.state, 'uncoded'), eq(codedItems.verbatim, row.verbatim)))
        .returning();
      if (!saved) return;
      await auditSystem(tx, now, [codingChange(placeOf(item), 'coding.code', codingAudit(row), codingAudit(saved))]);
    });
  }
}
