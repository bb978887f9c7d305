import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { AppContext } from '../app-context.js';
import type { Db } from '../db/client.js';
import {
  consultations,
  crfDataRecords,
  doubts,
  followRecordCrfs,
  followRecords,
  medicalRecords,
  subjectRecords,
  subjects,
} from '../db/schema/index.js';
import { ALL_SITES_KEY, hasStudyPermission, type StudyAccess } from './study-access.js';
import { queryRows } from '../db/client.js';

/**
 * Site scope (分中心, docs/multi-centre.md), one place: the SQL condition every list of patient data adds, and the
 * locators by which the study guard finds the one patient a route names. A patient's site is `subjects.dept_id`.
 */

export /** A member's access with their site scope: their sites and sub-departments, or every site (查看全部中心数据). */
async function siteScopedAccess(
  ctx: AppContext,
  m: Omit<StudyAccess, 'siteIds' | 'ownSiteIds'> & { deptId: number | null; siteIds: number[] | null },
): Promise<StudyAccess> {
  const { deptId, siteIds, ...access } = m;
  const ownSiteIds = siteIds?.length ? siteIds : deptId !== null ? [deptId] : [];
  const allSites = access.all || hasStudyPermission({ ...access, siteIds: null, ownSiteIds }, ALL_SITES_KEY);
  return { ...access, siteIds: allSites ? null : await withSubDepartments(ctx, ownSiteIds), ownSiteIds };
}

/** The sites and every department under them. */
export async function withSubDepartments(ctx: AppContext, siteIds: number[]): Promise<number[]> {
  if (siteIds.length === 0) return [];
  const rows = await queryRows<{ dept_id: number }>(
    ctx.db,
    sql`with recursive tree as (
      select dept_id from departments where dept_id in (${sql.join(siteIds, sql`, `)})
      union
      select d.dept_id from departments d join tree t on d.parent_id = t.dept_id
    ) select dept_id from tree order by dept_id`,
  );
  return rows.map((r) => Number(r.dept_id));
}

/** The condition "this patient's site is one the caller sees" on a column holding the site; undefined for all sites. */
export function inCallerSites(access: Pick<StudyAccess, 'siteIds'>, siteColumn: PgColumn | SQL): SQL | undefined {
  if (access.siteIds === null) return undefined;
  if (access.siteIds.length === 0) return sql`false`;
  return inArray(siteColumn as PgColumn, access.siteIds);
}

/** The condition on a subject-record id column: its patient is at a site the caller sees. */
export function recordInCallerSites(access: Pick<StudyAccess, 'siteIds'>, subjectRecordIdColumn: PgColumn | SQL) {
  if (access.siteIds === null) return undefined;
  if (access.siteIds.length === 0) return sql`false`;
  return sql`${subjectRecordIdColumn} in (select sr.id from ${subjectRecords} sr join ${subjects} s on s.id = sr.subject_id
    where s.dept_id in (${sql.join(access.siteIds, sql`, `)}))`;
}

/** The condition on a subject id column. */
export function subjectInCallerSites(access: Pick<StudyAccess, 'siteIds'>, subjectIdColumn: PgColumn | SQL) {
  if (access.siteIds === null) return undefined;
  if (access.siteIds.length === 0) return sql`false`;
  return sql`${subjectIdColumn} in (select s.id from ${subjects} s where s.dept_id in (${sql.join(access.siteIds, sql`, `)}))`;
}

type Found = Promise<number | null | undefined>;

async function first(rows: Promise<Array<{ siteId: number | null }>>): Found {
  const [row] = await rows;
  return row ? row.siteId : undefined;
}

export const siteOfSubject = (db: Db, subjectId: number): Found =>
  first(db.select({ siteId: subjects.deptId }).from(subjects).where(eq(subjects.id, subjectId)));

export const siteOfRecord = (db: Db, subjectRecordId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(subjectRecords)
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(eq(subjectRecords.id, subjectRecordId)),
  );

export const siteOfDataRecord = (db: Db, crfDataRecordId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(crfDataRecords)
      .innerJoin(subjectRecords, eq(subjectRecords.id, crfDataRecords.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(eq(crfDataRecords.id, crfDataRecordId)),
  );

export const siteOfDoubt = (db: Db, doubtId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(doubts)
      .innerJoin(subjectRecords, eq(subjectRecords.id, doubts.subjectRecordId))
      .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
      .where(eq(doubts.id, doubtId)),
  );

export const siteOfFollowRecord = (db: Db, followRecordId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(followRecords)
      .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
      .where(eq(followRecords.id, followRecordId)),
  );

export const siteOfFollowRecordCrf = (db: Db, followRecordCrfId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(followRecordCrfs)
      .innerJoin(followRecords, eq(followRecords.id, followRecordCrfs.followRecordId))
      .innerJoin(subjects, eq(subjects.id, followRecords.subjectId))
      .where(eq(followRecordCrfs.id, followRecordCrfId)),
  );

export const siteOfConsultation = (db: Db, consultationId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(consultations)
      .innerJoin(subjects, eq(subjects.id, consultations.subjectId))
      .where(eq(consultations.id, consultationId)),
  );

export const siteOfMedicalRecord = (db: Db, medicalRecordId: number): Found =>
  first(
    db
      .select({ siteId: subjects.deptId })
      .from(medicalRecords)
      .innerJoin(subjects, eq(subjects.id, medicalRecords.subjectId))
      .where(and(eq(medicalRecords.id, medicalRecordId))),
  );

/**
 * Request keys that always name one patient's data, with how to find that patient's site. The study guard checks
 * each one a request carries (and its plural, `subjectRecordIds`), in params, query and body.
 */
export const PATIENT_ID_KEYS: Readonly<Record<string, (db: Db, id: number) => Found>> = {
  subjectRecordId: siteOfRecord,
  subjectId: siteOfSubject,
  crfDataRecordId: siteOfDataRecord,
  doubtId: siteOfDoubt,
  followRecordId: siteOfFollowRecord,
  followRecordCrfId: siteOfFollowRecordCrf,
};

/** The guard's locators, bound to the app: `config.site: sites.ofRecord((r) => r.query.subjectRecordId)`. */
export function siteLocators(ctx: AppContext) {
  const bind =
    (find: (db: Db, id: number) => Found) =>
    <R>(idOf: (request: R) => unknown) =>
    async (request: R): Found => {
      const id = Number(idOf(request));
      return Number.isSafeInteger(id) && id > 0 ? find(ctx.db, id) : undefined;
    };
  return {
    ofSubject: bind(siteOfSubject),
    ofRecord: bind(siteOfRecord),
    ofDataRecord: bind(siteOfDataRecord),
    ofDoubt: bind(siteOfDoubt),
    ofFollowRecord: bind(siteOfFollowRecord),
    ofFollowRecordCrf: bind(siteOfFollowRecordCrf),
    ofConsultation: bind(siteOfConsultation),
    ofMedicalRecord: bind(siteOfMedicalRecord),
  };
}
