import type { SQL } from 'drizzle-orm';
import { FORM_STATE } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { SYSTEM_QUERIES } from '../doubt/system-queries.subscriber.js';
import { assertWritable } from '../locks/lock-gate.js';
import { definitionOf } from '../study/crf-definitions.js';
import { versionForNewRecord } from '../amendment/draft-version.service.js';
import { judgeSave } from './form-rules.js';
import { formIdentifiers } from './identifier-values.js';
import { labRangesForSave } from './form-lab-ranges.js';
import { otherFormValues } from './linked-values.service.js';
import { readForSave } from './form-write-reads.js';
import { mayWriteForm, patientRefusal, recordRefusal } from './form-write-refusals.js';
import { writeRecord } from './form-write-record.js';
import {
  writerMayChangeIdentifiers,
  writerTimeZone,
  type FormChange,
  type FormWriter,
  type FormWritten,
} from './form-writer.js';

/**
 * The one write path for form values. Every writer — the form page's save and submit, patient-reported forms, the
 * REDCap-compatible API, image URLs, and through form-write-batch.ts the data import — translates its input into a
 * FormChange and a FormWriter and calls here. In this order, inside the caller's transaction: who may write (the
 * writer's form right, then its right to this patient: study, site, own casebook), the locks (lock-gate.ts), the
 * record's own rules (stale version, a patient's submitted form), the engine's judgement (judgeSave: values, submit
 * and reason rules, SDV marks cleared), the record written, the signatures over the casebook voided, the audit
 * rows, the domain event and the follow-up visit's link.
 */

// Every writer imports the write path from here, wherever a piece now lives.
export {
  writerActor,
  writerMayChangeIdentifiers,
  writerTimeZone,
  writerUserId,
  type AuditActor,
  type FormChange,
  type FormWriter,
  type FormWritten,
  type SaveInput,
  type StaffWriter,
} from './form-writer.js';
export { crfOfStudy, liveRecord, singleLiveRecord } from './form-write-reads.js';
export { formRefusal, otherSiteRefusal, patientRefusal } from './form-write-refusals.js';
export { formSavedEvent, RequestAlreadyApplied } from './form-write-record.js';

/** The migration writer of an amendment (issue 36): records moved to a newer version of their form. */
export { migrateBatch, type MigrationBatch, type MigrationCounts } from './form-write-migration.js';

/**
 * Writes one form's values inside the caller's transaction, through every rule in the order above. Throws the
 * refusals (403, 404, 409, 423, crf.invalid, crf.reason_required) before anything is written.
 */
export async function writeForm(
  tx: Db,
  ctx: AppContext,
  writer: FormWriter,
  change: FormChange,
  /** A WITH entry to write with the save (the request's operation-log row): it commits with the save or not at all. */
  alsoWrite?: SQL,
): Promise<FormWritten> {
  const now = ctx.clock();
  await mayWriteForm(tx, writer, change);
  const { record, gender, birth, test, crf, missingCodes, existing } = await readForSave(tx, change);
  const refused = patientRefusal(writer, record);
  if (refused) throw refused;
  await assertWritable(tx, { studyId: record.studyId, subjectRecordId: record.id, crfDataRecordId: existing?.id });
  const stale = await recordRefusal(tx, writer, change, existing);
  if (stale) throw stale;

  // A test patient's new record fills the CRF's open draft (issue 36); a record keeps its version afterwards.
  const crfVersion = existing?.crfVersion ?? versionForNewRecord(crf, test);
  const definition = await definitionOf(tx, change.crfId, crfVersion);
  const labRanges = await labRangesForSave(tx, {
    studyId: record.studyId,
    siteId: record.siteId,
    gender,
    birth,
    definition,
    values: { ...existing?.values, ...change.values },
    recordCreatedAt: existing?.createdAt ?? null,
    now,
    timeZone: writerTimeZone(writer),
  });
  const judged = judgeSave(definition, change.values, existing, {
    submit: Boolean(change.submit),
    reason: change.reason,
    now,
    timeZone: writerTimeZone(writer),
    gender,
    forms: await otherFormValues(tx, record.studyId, record.id, definition),
    missing: change.missing ?? undefined,
    missingCodes,
    referenceRanges: labRanges.overrides,
    identifiers: {
      items: await formIdentifiers(tx, change.crfId, [crfVersion], crf.currentVersion),
      mayChange: writerMayChangeIdentifiers(writer),
    },
  });
  const written = await writeRecord(
    { ctx, tx, writer, change, now, record, crf, crfVersion, judged, alsoWrite, labRanges: labRanges.used },
    existing,
  );
  return {
    crfDataRecordId: written.id,
    version: written.version,
    state: judged.state,
    warnings: judged.warnings,
    changedItems: judged.changed,
    event: written.event,
  };
}

/**
 * How long a save's answer waits for its system queries (raised after commit by their subscriber), so that the
 * page, which refetches the form and its menu on the answer, shows them. Past this the answer goes without them.
 */
const SYSTEM_QUERY_WAIT_MS = 3_000;

/**
 * writeForm in a transaction of its own (the change is stated in it when the writer reads to state it); a submitted
 * form's system queries are raised before the answer.
 */
export async function saveForm(
  ctx: AppContext,
  writer: FormWriter,
  change: FormChange | ((tx: Db) => Promise<FormChange>),
  alsoWrite?: SQL,
): Promise<FormWritten> {
  const written = await ctx.db.transaction(async (tx) =>
    writeForm(tx, ctx, writer, typeof change === 'function' ? await change(tx) : change, alsoWrite),
  );
  // Only a submitted form has system queries to raise or close: a draft's save (most saves) answers at once.
  if (written.state === FORM_STATE.submitted) {
    await ctx.events.delivered(written.event, SYSTEM_QUERIES, SYSTEM_QUERY_WAIT_MS);
  }
  return written;
}
