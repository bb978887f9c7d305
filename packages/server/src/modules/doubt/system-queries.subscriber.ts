import { and, eq, sql } from 'drizzle-orm';
import { evaluateForm, FORM_STATE, genderFromPatient, overridesFromUsed } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { crfDataRecords, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { definitionOf } from '../study/crf-definitions.js';
import { otherFormValues } from '../crf-data/linked-values.service.js';
import { DOUBT_TYPE, OPTION } from './doubt.service.js';
import { syncSystemQueries, systemFindings } from './system-queries.service.js';

/** The outbox subscriber that raises and closes system queries after a form is saved or submitted. */
export const SYSTEM_QUERIES = 'doubt.system-queries';

type RecordEvent = Extract<DomainEvent, { type: 'record.saved' | 'record.submitted' }>;

export function subscribeSystemQueries(ctx: AppContext): void {
  ctx.events.subscribe(SYSTEM_QUERIES, ['record.saved', 'record.submitted'], (delivered) =>
    reconcileSystemQueries(ctx, delivered.event as RecordEvent),
  );
}

/**
 * Brings a record's system queries in line with the record as it is now: the engine runs again on
 * the stored values, at the time of the last save (`updatedAt`, the time that save evaluated with),
 * with the study's zone, the patient's sex and the other forms' values, exactly as the save did.
 * Idempotent: it works from the current state, not from the event, so a repeated delivery raises
 * nothing twice (an open query of the same check stands) and events of one record delivered late or
 * out of order converge on the same queries. The record's row lock serializes it with a concurrent
 * save and with a delivery of another event of the same record on another app server.
 */
export async function reconcileSystemQueries(ctx: AppContext, event: RecordEvent): Promise<void> {
  if (!(await mayHaveSystemQueries(ctx, event))) return;
  await ctx.db.transaction(async (tx) => {
    const [record] = await tx
      .select()
      .from(crfDataRecords)
      .where(and(eq(crfDataRecords.id, event.recordId), eq(crfDataRecords.studyId, event.studyId)))
      .for('update');
    if (!record || record.deletedAt) return;
    const [study] = await tx
      .select({ doubt: studies.doubt, timeZone: studies.timeZone })
      .from(studies)
      .where(eq(studies.studyId, record.studyId));
    if (study?.doubt !== '1') return;
    const [patient] = await tx
      .select({ subjectId: subjects.id, gender: subjects.gender })
      .from(subjectRecords)
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(eq(subjectRecords.id, record.subjectRecordId));
    const definition = await definitionOf(tx, record.crfId, record.crfVersion);
    const forms = await otherFormValues(tx, record.studyId, record.subjectRecordId, definition);
    const evaluated = evaluateForm(definition, record.values, {
      now: record.updatedAt,
      timeZone: study.timeZone,
      gender: genderFromPatient(patient?.gender),
      forms,
      // An item marked with a missing-data code holds no value on purpose: no check fires on it (缺失原因).
      missing: record.missing,
      // 参考范围: judged by the site range the save judged by (crf_data_records.lab_ranges).
      referenceRanges: overridesFromUsed(record.labRanges),
    });
    await syncSystemQueries(
      ctx,
      tx,
      ctx.clock(),
      {
        id: record.id,
        studyId: record.studyId,
        subjectId: patient?.subjectId ?? event.subjectId,
        subjectRecordId: record.subjectRecordId,
        crfId: record.crfId,
        crfVersion: record.crfVersion,
        values: record.values,
      },
      event.by,
      systemFindings(definition, evaluated),
      record.state === FORM_STATE.submitted,
    );
  });
}

/**
 * Whether reconciling can change anything, in one statement and no transaction: system queries are raised only
 * on a submitted form, so a draft without an open system query (most saves: a form being filled in) has none to
 * raise or close. A form submitted or a query raised after this look is reconciled by that change's own event.
 */
async function mayHaveSystemQueries(ctx: AppContext, event: RecordEvent): Promise<boolean> {
  const [probe] = await queryRows<{ state: number; open: boolean }>(
    ctx.db,
    sql`select r.state, exists (
        select 1 from doubts d
        where d.crf_data_record_id = r.id and d.doubt_type = ${DOUBT_TYPE.system} and d.option_type <> ${OPTION.closed}
      ) as open
      from crf_data_records r join studies s on s.study_id = r.study_id
      where r.id = ${event.recordId} and r.study_id = ${event.studyId} and r.deleted_at is null and s.doubt = '1'`,
  );
  return probe !== undefined && (Number(probe.state) === FORM_STATE.submitted || probe.open);
}
