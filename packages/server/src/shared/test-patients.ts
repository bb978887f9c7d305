import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.js';
import { subjects } from '../db/schema/index.js';

/**
 * A production study's test patients (subjects.test: entered against the drafts to check a new CRF version) are
 * test data: they count in none of the study's figures and no retrieval finds them, as no production export holds
 * them (contract of issue 36). In a study in 测试 every patient is test data and every one counts. Either way they
 * stay in the patient list, tagged 测试, so that whoever checks a draft can open them.
 */

/**
 * The condition on `subjects` (the table unaliased): not a test patient of a production study. The study's mode is
 * read only for a test patient's row, so the common row costs nothing.
 */
export const notTestOfLiveStudy: SQL = sql`not (${subjects.test} and exists (select 1 from studies st
  where st.study_id = ${subjects.studyId} and st.mode = 'production'))`;

/** A production study's test patients and their casebooks, deleted ones included (as the kept figures hold them). */
export interface LeftOutPatients {
  subjectIds: number[];
  subjectRecordIds: number[];
}

/**
 * The patients a production study's figures leave out (its test patients); null for a study in 测试, where all
 * count. One statement: the study's row, with its test patients if it is live. Without an index on subjects.test
 * this reads the study's patients once (their heap rows); a partial index `subjects (study_id) where test` would
 * make it read the test patients only.
 */
export async function leftOutPatients(db: Db, studyId: number): Promise<LeftOutPatients | null> {
  const rows = await queryRows<{ subject_id: number | null; subject_record_id: number | null }>(
    db,
    sql`select s.id as subject_id, sr.id as subject_record_id
        from studies st
        left join subjects s on s.study_id = st.study_id and s.test
        left join subject_records sr on sr.subject_id = s.id and sr.study_id = st.study_id
        where st.study_id = ${studyId} and st.mode = 'production'`,
  );
  if (rows.length === 0) return null;
  const ids = (values: Array<number | null>) => [...new Set(values.filter((v): v is number => v !== null).map(Number))];
  return {
    subjectIds: ids(rows.map((r) => r.subject_id)),
    subjectRecordIds: ids(rows.map((r) => r.subject_record_id)),
  };
}
