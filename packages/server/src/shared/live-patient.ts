import { and, eq, isNull } from 'drizzle-orm';
import { subjectRecords, subjects } from '../db/schema/index.js';

/**
 * The condition, on patients joined with their casebook (`subjects` inner join `subject_records`), that names one
 * patient of a study still in it: neither the patient nor the casebook removed.
 */
export function livePatientOfStudy(studyId: number, subjectId: number) {
  return and(
    eq(subjects.id, subjectId),
    eq(subjects.studyId, studyId),
    isNull(subjects.deletedAt),
    isNull(subjectRecords.deletedAt),
  );
}
