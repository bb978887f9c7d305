import { eq } from 'drizzle-orm';
import { followRecords, subjectRecords } from '../db/schema/index.js';
import type { TestApp } from './test-app.js';

/** A visit to insert: its name, state (core's FOLLOW_STATES), occurrence and whether it is custom. */
export type VisitRow = [visitName: string, state: number, occurrence: number, custom?: boolean];

/**
 * Inserts follow-up visits straight into follow_records for the study's first casebook, planned on 2026-10-01:
 * for tests of what is read from visits in given states (figures, compliance), not of how visits come to be.
 */
export async function insertVisits(t: TestApp, studyId: number, visits: VisitRow[]): Promise<void> {
  const [record] = await t.db.select().from(subjectRecords).where(eq(subjectRecords.studyId, studyId)).limit(1);
  await t.db.insert(followRecords).values(
    visits.map(([visitName, state, occurrence, custom = false]) => ({
      studyId,
      subjectId: record!.subjectId,
      subjectRecordId: record!.id,
      visitName,
      occurrence,
      plannedDate: '2026-10-01',
      state,
      custom,
    })),
  );
}
