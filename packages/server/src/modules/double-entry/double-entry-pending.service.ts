import { sql, type SQL } from 'drizzle-orm';
import { maskName, type DoubleEntryPair, type DoubleEntryPairState, type DoubleEntryPendingQuery } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { crfs, departments, doubleEntries, subjectRecords, subjects } from '../../db/schema/index.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, withSubDepartments } from '../../shared/patient-site.js';
import { viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/**
 * 双录入核对's list (issue 37): every double-entry pair of the study, one row per form instance and round (the open
 * entries of an instance, or the two entries one reconciliation closed), with each entry's user and state and how
 * far the pair is. Under the caller's site scope (the patient's site) and only forms the caller may view; names
 * masked as every patient list masks them. The values of the entries never reach this list.
 */

interface PairRow {
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
  identificationCode: string;
  subjectName: string;
  deptId: number | null;
  siteName: string | null;
  crfTitle: string;
  entry1: { userId: number; userName: string; state: string } | null;
  entry2: { userId: number; userName: string; state: string } | null;
  status: DoubleEntryPairState;
  updatedAt: Date | string;
}

const entryOf = (e: PairRow['entry1']) =>
  e
    ? {
        userId: Number(e.userId),
        userName: e.userName,
        state: e.state === 'done' ? ('done' as const) : ('draft' as const),
      }
    : null;

export async function listPairs(
  ctx: AppContext,
  access: StudyAccess,
  query: DoubleEntryPendingQuery,
  page: PageRequest,
): Promise<{ list: DoubleEntryPair[]; total: number }> {
  const viewable = viewableCrfIds(access);
  const conditions: SQL[] = [sql`${doubleEntries.studyId} = ${access.studyId}`];
  if (viewable !== null) {
    conditions.push(viewable.length > 0 ? sql`${doubleEntries.crfId} in (${sql.join(viewable, sql`, `)})` : sql`false`);
  }
  const entry = (no: 1 | 2) =>
    sql`(array_agg(jsonb_build_object('userId', ${doubleEntries.userId}, 'userName', ${doubleEntries.userName},
      'state', ${doubleEntries.state})) filter (where ${doubleEntries.entryNo} = ${no}))[1]`;
  const done = (no: 1 | 2) => sql`bool_or(${doubleEntries.entryNo} = ${no} and ${doubleEntries.state} = 'done')`;
  // One pair: the open entries of a form instance, or the two one reconciliation closed (they share its time).
  const pairs = sql`select ${doubleEntries.subjectRecordId} as subject_record_id, ${doubleEntries.crfId} as crf_id,
      max(${doubleEntries.crfDataRecordId}) as crf_data_record_id, max(${doubleEntries.updatedAt}) as updated_at,
      ${entry(1)} as entry1, ${entry(2)} as entry2,
      case when ${doubleEntries.reconciledAt} is not null then 'reconciled'
        when ${done(1)} is not true then 'entry1'
        when ${done(2)} is not true then 'entry2'
        else 'pending' end as status
    from ${doubleEntries}
    where ${sql.join(conditions, sql` and `)}
    group by ${doubleEntries.subjectRecordId}, ${doubleEntries.crfId}, coalesce(${doubleEntries.crfDataRecordId}, 0),
      ${doubleEntries.reconciledAt}`;

  const outer: SQL[] = [sql`${subjectRecords.deletedAt} is null`, sql`${subjectRecords.studyId} = ${access.studyId}`];
  // An open pair of a form no longer set to double entry cannot be reconciled: only its history stays listed.
  outer.push(sql`(${crfs.doubleEntry} or p.status = 'reconciled')`);
  const scope = inCallerSites(access, subjects.deptId);
  if (scope) outer.push(scope);
  if (query.deptId) {
    const depts = await withSubDepartments(ctx, [query.deptId]);
    outer.push(depts.length > 0 ? sql`${subjects.deptId} in (${sql.join(depts, sql`, `)})` : sql`false`);
  }
  if (query.status) outer.push(sql`p.status = ${query.status}`);
  const from = sql`from (${pairs}) p
    join ${subjectRecords} on ${subjectRecords.id} = p.subject_record_id
    join ${subjects} on ${subjects.id} = ${subjectRecords.subjectId}
    join ${crfs} on ${crfs.id} = p.crf_id
    left join ${departments} on ${departments.deptId} = ${subjects.deptId}
    where ${sql.join(outer, sql` and `)}`;

  const [counted] = await queryRows<{ total: number | string }>(ctx.db, sql`select count(*) as total ${from}`);
  const rows = await queryRows<PairRow>(
    ctx.db,
    sql`select p.subject_record_id as "subjectRecordId", p.crf_id as "crfId",
        p.crf_data_record_id as "crfDataRecordId", ${subjects.identificationCode} as "identificationCode",
        ${subjects.subjectName} as "subjectName", ${subjects.deptId} as "deptId",
        ${departments.deptName} as "siteName", ${crfs.title} as "crfTitle", p.entry1, p.entry2, p.status,
        p.updated_at as "updatedAt"
      ${from}
      order by p.updated_at desc, p.subject_record_id, p.crf_id
      limit ${page.limit} offset ${page.offset}`,
  );
  const clearNames = seesIdentifiers(access);
  return {
    total: Number(counted?.total ?? 0),
    list: rows.map((r) => ({
      subjectRecordId: Number(r.subjectRecordId),
      crfId: Number(r.crfId),
      crfDataRecordId: r.crfDataRecordId === null ? null : Number(r.crfDataRecordId),
      identificationCode: r.identificationCode,
      subjectName: clearNames ? r.subjectName : maskName(r.subjectName),
      deptId: r.deptId === null ? null : Number(r.deptId),
      siteName: r.siteName,
      crfTitle: r.crfTitle,
      entry1: entryOf(r.entry1),
      entry2: entryOf(r.entry2),
      status: r.status,
      updateDate: new Date(r.updatedAt).toISOString(),
    })),
  };
}
