/**
 * 上线 (go-live, docs/lifecycle.md): a study in 测试 becomes a production study. The test patients and everything
 * hanging on them are removed in one transaction, the trail's rows about them too (test rows are never chained, so
 * the append-only trigger lets exactly those go), and one chained row keeps the fact: who, when, why, and the
 * counts of what was purged, never its values.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { GOLIVE_MSG, studyModeOf, type GoLiveCounts } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { serialCounters, studies } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { audit } from '../audit/audit.service.js';
import { storageKeyOf } from '../files/file.service.js';
import { holdLocksExclusive } from '../locks/lock-gate.js';
import { resetTestList } from '../randomization/randomization-test-list.service.js';

const notFound = () => AppError.notFound('study.not_found', '项目不存在');

/** The study's test patients, their casebooks and their form records, as subqueries of the statement using them. */
function testSets(studyId: number) {
  const subjectIds = sql`(select id from subjects where study_id = ${studyId} and test)`;
  const casebookIds = sql`(select id from subject_records where study_id = ${studyId} and subject_id in ${subjectIds})`;
  const recordIds = sql`(select id from crf_data_records where study_id = ${studyId} and subject_record_id in ${casebookIds})`;
  return { subjectIds, casebookIds, recordIds };
}

/**
 * The study's stored files a test patient's data refers to (a form value, a medical record, a recognised image, a
 * test row of the trail) and nothing else does: their rows go with the patient. A file also named by production data
 * or by a chained row stays. File keys are 32 hex characters, safe inside a LIKE pattern.
 */
async function testFileKeys(db: Db, studyId: number): Promise<string[]> {
  const { subjectIds, casebookIds } = testSets(studyId);
  const named = (test: boolean) => {
    const of = (column: SQL) => (test ? sql`${column} in` : sql`${column} not in`);
    return sql`(exists (select 1 from crf_data_records r where r.study_id = ${studyId}
        and ${of(sql`r.subject_record_id`)} ${casebookIds} and r.values::text like '%' || f.file_key || '%')
      or exists (select 1 from medical_records m where m.study_id = ${studyId}
        and ${of(sql`m.subject_id`)} ${subjectIds} and m.files::text like '%' || f.file_key || '%')
      or exists (select 1 from recognitions g where g.study_id = ${studyId} and g.file_key = f.file_key
        and ${test ? sql`g.subject_record_id in ${casebookIds}` : sql`(g.subject_record_id is null or g.subject_record_id not in ${casebookIds})`})
      or exists (select 1 from audit_events a where a.study_id = ${studyId} and a.test = ${test}
        and (a.old_value::text like '%' || f.file_key || '%' or a.new_value::text like '%' || f.file_key || '%')))`;
  };
  const rows = await queryRows<{ file_key: string }>(
    db,
    sql`select f.file_key from stored_files f where f.study_id = ${studyId} and ${named(true)} and not ${named(false)}`,
  );
  return rows.map((r) => r.file_key);
}

/** What 上线 purges now: counted in the purge's own transaction too, so the audit row names what went. */
async function countTestData(db: Db, studyId: number): Promise<{ counts: GoLiveCounts; fileKeys: string[] }> {
  const { subjectIds, casebookIds } = testSets(studyId);
  const [row] = await queryRows<Record<Exclude<keyof GoLiveCounts, 'files'>, number>>(
    db,
    sql`select
      (select count(*) from subjects where study_id = ${studyId} and test)::int as "subjects",
      (select count(*) from crf_data_records where study_id = ${studyId} and subject_record_id in ${casebookIds})::int as "crfRecords",
      (select count(*) from doubts where study_id = ${studyId} and subject_record_id in ${casebookIds})::int as "doubts",
      (select count(*) from randomizations where study_id = ${studyId} and subject_id in ${subjectIds})::int as "randomizations",
      (select count(*) from follow_records where study_id = ${studyId} and subject_id in ${subjectIds})::int as "followRecords",
      (select count(*) from audit_events where study_id = ${studyId} and test)::int as "auditRows"`,
  );
  const fileKeys = await testFileKeys(db, studyId);
  const counts: GoLiveCounts = {
    subjects: Number(row!.subjects),
    crfRecords: Number(row!.crfRecords),
    doubts: Number(row!.doubts),
    randomizations: Number(row!.randomizations),
    followRecords: Number(row!.followRecords),
    files: fileKeys.length,
    auditRows: Number(row!.auditRows),
  };
  return { counts, fileKeys };
}

async function studyRow(db: Db, studyId: number, forUpdate = false) {
  const query = db.select().from(studies).where(eq(studies.studyId, studyId));
  const [row] = await (forUpdate ? query.for('update') : query);
  if (!row || row.deletedAt) throw notFound();
  return row;
}

/** GET golive: the study's mode and what 上线 would purge (the confirmation names it). */
export async function goLivePreview(ctx: AppContext, studyId: number) {
  const study = await studyRow(ctx.db, studyId);
  const { counts } = await countTestData(ctx.db, studyId);
  return { mode: studyModeOf(study.mode), counts };
}

/**
 * Every row hanging on a test patient, children before parents (the foreign keys: schema/*.ts), then the patients.
 * A calendar event of a user's own keeps its row and loses its link to the patient (not clinical data).
 */
async function purgeTestPatients(tx: Db, studyId: number, fileKeys: readonly string[]) {
  const { subjectIds, casebookIds, recordIds } = testSets(studyId);
  const s = studyId;
  const statements: SQL[] = [
    sql`delete from doubt_messages where study_id = ${s}
      and doubt_id in (select id from doubts where study_id = ${s} and subject_record_id in ${casebookIds})`,
    sql`delete from doubts where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from item_comments where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from sae_reports where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from quality_findings where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from coded_items where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from follow_record_crfs where study_id = ${s} and (crf_data_record_id in ${recordIds}
      or follow_record_id in (select id from follow_records where study_id = ${s} and subject_id in ${subjectIds}))`,
    sql`delete from follow_records where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from medical_records where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from recognitions where study_id = ${s}
      and (subject_record_id in ${casebookIds} or crf_data_record_id in ${recordIds})`,
    sql`delete from randomization_unblindings where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from randomizations where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from signatures where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from applied_requests where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from study_locks where study_id = ${s}
      and ((scope = 'subject' and target_id in ${casebookIds}) or (scope = 'record' and target_id in ${recordIds}))`,
    sql`delete from crf_data_records where study_id = ${s} and subject_record_id in ${casebookIds}`,
    sql`delete from patient_sessions where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from patient_bind_codes where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from consultations where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`update calendar_events set subject_id = null where study_id = ${s} and subject_id in ${subjectIds}`,
    // Domain events about them not delivered yet (their deliveries go with them: on delete cascade).
    sql`delete from outbox_events where study_id = ${s} and (payload->>'subjectId')::int in ${subjectIds}`,
    sql`delete from subject_records where study_id = ${s} and subject_id in ${subjectIds}`,
    sql`delete from subjects where study_id = ${s} and test`,
  ];
  for (const statement of statements) await tx.execute(statement);
  if (fileKeys.length > 0) {
    await tx.execute(
      sql`delete from stored_files where study_id = ${s} and file_key = any(${sql.param([...fileKeys])}::varchar[])`,
    );
  }
  // The trail's rows about them: the application role may not delete from the trail, this function may (0039).
  await tx.execute(sql`select purge_test_audit_rows(${s}::int)`);
}

/**
 * The test randomization list starts again (randomization-test-list.service.ts). With every patient gone, the serial
 * numbers of new patients restart too, so the first real patient is 0001.
 */
async function resetCounters(tx: Db, studyId: number) {
  await resetTestList(tx, studyId);
  const [left] = await queryRows<{ n: number }>(
    tx,
    sql`select count(*)::int as n from subjects where study_id = ${studyId}`,
  );
  if (Number(left?.n ?? 0) === 0) {
    await tx.update(serialCounters).set({ lastValue: 0 }).where(eq(serialCounters.studyId, studyId));
  }
}

export interface GoLiveInput {
  confirmCode: string;
  reason: string;
}

/** POST golive: 上线, with the study's code typed again; one audited transaction. */
export async function goLive(ctx: AppContext, user: CurrentUser, studyId: number, input: GoLiveInput) {
  const at = ctx.clock();
  const { purged, fileKeys } = await ctx.db.transaction(async (tx) => {
    // Every writer of the study's patient data waits (lock-gate.ts): nothing is added to what is purged meanwhile,
    // and an enrolment waiting here reads the new mode once this commits.
    await holdLocksExclusive(tx, studyId);
    const study = await studyRow(tx, studyId, true);
    if (studyModeOf(study.mode) === 'production') throw AppError.conflict('study.already_live', GOLIVE_MSG.alreadyLive);
    if (input.confirmCode.trim() !== study.studyCode) {
      throw AppError.badRequest('study.golive_code', GOLIVE_MSG.codeMismatch);
    }
    const { counts, fileKeys: keys } = await countTestData(tx, studyId);
    await purgeTestPatients(tx, studyId, keys);
    await resetCounters(tx, studyId);
    await tx
      .update(studies)
      .set({ mode: 'production', wentLiveAt: at, wentLiveBy: user.userId, updatedAt: at })
      .where(eq(studies.studyId, studyId));
    await audit(tx, user, at, [
      {
        studyId,
        action: 'study.golive',
        itemName: 'mode',
        oldValue: { mode: 'test' },
        newValue: { mode: 'production', purged: counts },
        reason: input.reason,
      },
    ]);
    return { purged: counts, fileKeys: keys };
  });
  // The bytes of the purged files, once their rows are gone for good; one left behind is only unreachable.
  for (const fileKey of fileKeys) {
    await ctx.files.delete(storageKeyOf(fileKey)).catch(() => undefined);
  }
  return { wentLiveAt: at, purged };
}
