import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import {
  changedItemNames,
  changedMarkNames,
  formReferencesOf,
  genderFromPatient,
  migrateRecordValues,
  type CrfDefinition,
  type MigrationOptions,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import type { DomainEvent, RecordedEvent } from '../../shared/domain-events.js';
import { chainedContent, type AuditEntry } from '../audit/audit.service.js';
import { appendChained } from '../audit/audit-chain.js';
import { lockRefusals } from '../locks/lock-gate.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';
import { clearSdv, saveAuditEntries, voidedSignatureEntries, voidSignatures } from './form-rules.js';
import { timeSlices } from './form-write-batch.js';
import type { AuditActor } from './form-write.js';
import { otherFormValuesOf } from './linked-values.service.js';
import { labRangesOfRecord, rangesOfSites, siteRowsOf } from './form-lab-ranges.js';

/**
 * The one write path's migration writer (issue 36, amendments that carry the data): a batch of a form's records
 * moved to a newer version, in the caller's (short) transaction, with the rules and rows every writer shares
 * (form-rules.ts): the lock gate first (a locked record is skipped, never moved), each record locked and re-read
 * (a save that committed first is carried, one that comes later finds the version bumped: 409, never lost), the
 * engine's migration instead of a save's judgement (core migrateRecordValues: a save's evaluation under the new
 * version, a removed item's value kept inert), then the record's update, its audit rows (the move, each changed
 * item with old and new value, each voided SDV mark), the casebook's signatures voided where values changed, and
 * a domain event per record (system queries are reconciled under the new version). The reason of every row is
 * the amendment's.
 */

export interface MigrationBatch {
  studyId: number;
  crfId: number;
  toVersion: number;
  to: CrfDefinition;
  /** The audit rows' reason, the voided signatures' and SDV marks': the amendment's name. */
  reason: string;
  actor: AuditActor;
  options: MigrationOptions;
  /** The records to move (those on the target version or newer, deleted or gone are passed over). */
  recordIds: readonly number[];
}

export interface MigrationCounts {
  moved: number;
  /** Moved records whose stored values changed. */
  changed: number;
  skippedLocked: number;
  lastEvent?: RecordedEvent;
}

type Stored = typeof crfDataRecords.$inferSelect;

export async function migrateBatch(tx: Db, ctx: AppContext, batch: MigrationBatch): Promise<MigrationCounts> {
  const counts: MigrationCounts = { moved: 0, changed: 0, skippedLocked: 0 };
  if (batch.recordIds.length === 0) return counts;
  const { studyId, crfId, toVersion } = batch;
  const now = ctx.clock();
  const slice = timeSlices();
  const lockOf = await lockRefusals(
    tx,
    studyId,
    batch.recordIds.map((id) => ({ crfDataRecordId: id })),
  );
  const open = batch.recordIds.filter((id) => {
    const locked = lockOf({ crfDataRecordId: id }) !== null;
    if (locked) counts.skippedLocked += 1;
    return !locked;
  });
  if (open.length === 0) return counts;
  // Locked in id order (as the batch writer locks), re-read as they are now: a concurrent save is serialised here.
  const rows = await tx
    .select({
      record: crfDataRecords,
      subjectId: subjectRecords.subjectId,
      gender: subjects.gender,
      birth: subjects.birth,
      siteId: subjects.deptId,
    })
    .from(crfDataRecords)
    .innerJoin(
      subjectRecords,
      and(eq(subjectRecords.id, crfDataRecords.subjectRecordId), isNull(subjectRecords.deletedAt)),
    )
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(
      and(
        eq(crfDataRecords.studyId, studyId),
        eq(crfDataRecords.crfId, crfId),
        inArray(crfDataRecords.id, open),
        isNull(crfDataRecords.deletedAt),
        lt(crfDataRecords.crfVersion, toVersion),
      ),
    )
    .orderBy(asc(crfDataRecords.id))
    .for('update', { of: crfDataRecords });
  if (rows.length === 0) return counts;

  const versions = [...new Set(rows.map((r) => r.record.crfVersion))];
  const definitions = await definitionsOf(
    tx,
    versions.map((version) => ({ crfId, version })),
  );
  const casebooks = [...new Set(rows.map((r) => r.record.subjectRecordId))];
  // What form("标题", "item") reads under either version, as the save passes it.
  const forms = new Map<number, Record<string, Record<string, unknown>>>();
  for (const definition of [batch.to, ...definitions.values()]) {
    if (formReferencesOf(definition).length === 0) continue;
    for (const [id, values] of await otherFormValuesOf(tx, studyId, casebooks, definition)) {
      forms.set(id, { ...forms.get(id), ...values });
    }
  }

  // 参考范围: the batch's sites' range rows, one query; each record judged and stored as the save would (form-lab-ranges).
  const siteRanges = await rangesOfSites(
    tx,
    studyId,
    rows.map((r) => r.siteId),
  );

  const updates: Array<{
    record: Stored;
    labRanges: Record<string, unknown>;
    values: Record<string, unknown>;
    missing: Record<string, string>;
    sdv: Record<string, unknown>;
  }> = [];
  const entries: AuditEntry[] = [];
  const events: DomainEvent[] = [];
  const voiding = new Map<number, string>();
  for (const { record, subjectId, gender, birth, siteId } of rows) {
    await slice();
    const from = definitions.get(versionKey(crfId, record.crfVersion));
    if (!from) continue;
    // Chosen under the new version (its items, its sample date item), at the record's sample date as a save would.
    const labRanges = labRangesOfRecord(siteRowsOf(siteRanges, siteId), {
      gender,
      birth,
      definition: batch.to,
      values: record.values,
      recordCreatedAt: record.createdAt,
      now,
      timeZone: batch.options.timeZone,
    });
    const migrated = migrateRecordValues(from, batch.to, record.values, batch.options, {
      gender: genderFromPatient(gender),
      forms: forms.get(record.subjectRecordId) ?? {},
      missing: record.missing,
      referenceRanges: labRanges.overrides,
    });
    // 缺失原因: marks the new version drops (removed or hidden item) are changes like values (migrate-marks.ts).
    const changed = [
      ...new Set([
        ...changedItemNames(record.values, migrated.values),
        ...changedMarkNames(record.missing, migrated.missing),
      ]),
    ];
    const { sdv, cleared } = clearSdv(record.sdv, changed);
    updates.push({ record, values: migrated.values, missing: migrated.missing, sdv, labRanges: labRanges.used });
    const base = {
      studyId,
      subjectRecordId: record.subjectRecordId,
      crfDataRecordId: record.id,
      crfId,
      crfVersion: toVersion,
    };
    entries.push({
      ...base,
      action: 'crf.migrate',
      oldValue: record.crfVersion,
      newValue: toVersion,
      reason: batch.reason,
    });
    entries.push(
      ...saveAuditEntries(
        base,
        record,
        {
          after: migrated.values,
          before: record.values,
          missing: migrated.missing,
          missingBefore: record.missing,
          changed,
          cleared,
          reason: batch.reason,
        },
        false,
        batch.reason,
      ),
    );
    if (changed.length > 0) {
      counts.changed += 1;
      voiding.set(record.subjectRecordId, batch.reason);
    }
    events.push({ type: 'record.saved', studyId, subjectId, crfId, recordId: record.id, by: batch.actor.userId });
    counts.moved += 1;
  }
  if (updates.length === 0) return counts;

  const values = updates.map(
    (u) =>
      sql`(${u.record.id}::int, ${JSON.stringify(u.values)}::jsonb, ${JSON.stringify(u.missing)}::jsonb, ${JSON.stringify(u.sdv)}::jsonb, ${u.record.version + 1}::int, ${JSON.stringify(u.labRanges)}::jsonb)`,
  );
  await tx.execute(sql`update crf_data_records as r
    set "values" = v.vals, missing = v.missing, sdv = v.sdv, version = v.version, lab_ranges = v.lab_ranges, crf_version = ${toVersion}::int,
      updated_by = ${batch.actor.userId || null}, updated_at = ${now.toISOString()}::timestamptz
    from (values ${sql.join(values, sql`, `)}) as v(id, vals, missing, sdv, version, lab_ranges)
    where r.id = v.id and r.study_id = ${studyId}`);
  if (voiding.size > 0) {
    const voids = [...voiding].map(([subjectRecordId, why]) => ({ subjectRecordId, why }));
    const voided = await queryRows<{ id: number; subject_record_id: number }>(tx, voidSignatures(studyId, voids, now));
    entries.push(...voidedSignatureEntries(studyId, voids, voided));
  }
  await appendChained(tx, chainedContent(batch.actor, now, entries));
  counts.lastEvent = (await ctx.events.recordMany(tx, events)).at(-1);
  return counts;
}
