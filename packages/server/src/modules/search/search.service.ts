// Running a search: the matching patients, one page, with the chosen columns as text (conditions compiled in
// search-sql.ts).
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import {
  maskIdentifier,
  readRows,
  SEARCH_ROW_SEPARATOR,
  todayString,
  missingMarkText,
  valueText,
  type PatientSearchField,
  type SearchColumn,
  type SearchConditions,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, subjectRecords, subjects } from '../../db/schema/index.js';
import type { PageRequest } from '../../shared/paging.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { inCallerSites } from '../../shared/patient-site.js';
import { notTestOfLiveStudy } from '../../shared/test-patients.js';
import { fileKeysOf, fileNamesOf } from '../audit/audit-text.service.js';
import { patientParticulars, seesIdentifiers } from '../subjects/subject.service.js';
import { RECORD_SEPARATOR } from './search-dictionary.js';
import { compile, patientText, type CompileContext } from './search-sql.js';

export interface SearchRequest {
  conditions: SearchConditions;
  columns: SearchColumn[];
}

/**
 * POST /api/business/search/v2: the study's live patients matching the conditions, newest first (the patient
 * list's order), one page with the chosen columns as text. A repeatable form's records are all shown in one
 * cell, in record order, joined by ；.
 */
export async function search(ctx: AppContext, access: StudyAccess, request: SearchRequest, page: PageRequest) {
  const { c, where, columns } = await compile(ctx, access, request.conditions, request.columns);
  // Only the patients of the caller's sites (分中心): the count and every page, and so the v2 export's patients too;
  // never a production study's test patients (entered against drafts; a study in 测试 finds every patient).
  const scope = and(
    eq(subjectRecords.studyId, access.studyId),
    isNull(subjectRecords.deletedAt),
    inCallerSites(access, subjects.deptId),
    notTestOfLiveStudy,
    where,
  );
  const rows = await ctx.db
    .select({
      subjectRecordId: subjectRecords.id,
      subjectId: subjects.id,
      ...patientParticulars,
      state: subjectRecords.state,
      createTime: subjects.createdAt,
      age: sql<string | null>`${patientText(c, 'age')}`,
      // The count in the same pass as the page: the conditions are evaluated once, not twice.
      total: sql<number>`count(*) over ()`,
    })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(scope)
    .orderBy(desc(subjects.createdAt), desc(subjects.id))
    .limit(page.limit)
    .offset(page.offset);
  const total =
    rows.length > 0
      ? Number(rows[0]!.total)
      : page.offset === 0
        ? 0
        : Number(
            (
              await ctx.db
                .select({ n: count() })
                .from(subjectRecords)
                .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
                .where(scope)
            )[0]!.n,
          );

  const itemCrfIds = [...new Set(columns.flatMap((col) => (col.column.kind === 'item' ? [col.column.crfId] : [])))];
  const records =
    rows.length > 0 && itemCrfIds.length > 0
      ? await ctx.db
          .select({
            subjectRecordId: crfDataRecords.subjectRecordId,
            crfId: crfDataRecords.crfId,
            values: crfDataRecords.values,
            missing: crfDataRecords.missing,
          })
          .from(crfDataRecords)
          .where(
            and(
              eq(crfDataRecords.studyId, access.studyId),
              inArray(
                crfDataRecords.subjectRecordId,
                rows.map((r) => r.subjectRecordId),
              ),
              inArray(crfDataRecords.crfId, itemCrfIds),
              isNull(crfDataRecords.deletedAt),
            ),
          )
          .orderBy(asc(crfDataRecords.id))
      : [];

  // The values of each item column, per record: a list-group or table column's rows in row order.
  const itemValues = (column: SearchColumn, values: Record<string, unknown>) => {
    if (column.kind !== 'item') return [];
    const found = c.dict.nodes.get(column.crfId)?.get(column.itemName);
    if (!found?.group) return [{ value: values[column.itemName], beside: values }];
    return readRows(values[found.group.name]).map((row) => ({ value: row[column.itemName], beside: row }));
  };
  // Uploads read as their files' names (as uploaded), as in the casebook: one statement for the page.
  const fileKeys = columns.flatMap((col) => {
    if (col.column.kind !== 'item') return [];
    const { crfId, itemName } = col.column;
    const found = c.dict.nodes.get(crfId)?.get(itemName);
    if (found?.kind !== 'file') return [];
    return records
      .filter((r) => r.crfId === crfId)
      .flatMap((r) => itemValues(col.column, r.values).flatMap((v) => fileKeysOf(found.node, v.value)));
  });
  const fileNames = fileKeys.length > 0 ? await fileNamesOf(ctx.db, access.studyId, fileKeys) : undefined;

  const list = rows.map((row) => {
    const cells: Record<string, string> = {};
    for (const col of columns) {
      if (col.column.kind === 'patient') {
        cells[col.key] = patientCell(c, row, col.column.field);
        continue;
      }
      const { crfId, itemName } = col.column;
      const node = c.dict.nodes.get(crfId)?.get(itemName)?.node;
      cells[col.key] = records
        .filter((r) => r.subjectRecordId === row.subjectRecordId && r.crfId === crfId)
        .map((r) =>
          // A mark stands where its value would, as in the audit trail: [缺失:ND].
          Object.hasOwn(r.missing, itemName)
            ? missingMarkText(r.missing[itemName]!)
            : itemValues(col.column, r.values)
                .map((v) => valueText(node, v.value, v.beside, { fileNames }))
                .filter((text) => text !== '')
                .join(SEARCH_ROW_SEPARATOR),
        )
        .filter((text) => text !== '')
        .join(RECORD_SEPARATOR);
    }
    return {
      subjectRecordId: row.subjectRecordId,
      subjectId: row.subjectId,
      identificationCode: row.identificationCode,
      cells,
    };
  });
  return {
    total,
    pageNum: page.pageNum,
    pageSize: page.pageSize,
    columns: columns.map(({ key, title, crfTitle, unit, repeatable }) => ({ key, title, crfTitle, unit, repeatable })),
    list,
  };
}

function patientCell(
  c: CompileContext,
  row: {
    identificationCode: string;
    subjectName: string;
    gender: number;
    birth: string | null;
    mobile: string | null;
    idNumberEnc: string | null;
    diseaseCode: string;
    state: number;
    createTime: Date;
    age: string | null;
  },
  field: PatientSearchField,
): string {
  const label = (value: string) =>
    c.dict.patientFields.find((f) => f.field === field)?.options.find((o) => o.value === value)?.label ?? value;
  switch (field) {
    case 'identificationCode':
      return row.identificationCode;
    case 'subjectName':
      return row.subjectName;
    case 'gender':
      return label(String(row.gender));
    case 'birth':
      return row.birth ?? '';
    case 'age':
      return row.age ?? '';
    case 'mobile':
      return row.mobile ?? '';
    case 'idNumber': {
      const clear = row.idNumberEnc ? c.ctx.fieldCrypto.decrypt(row.idNumberEnc) : '';
      // Reached only with the identifier permission (resolveColumns); masked anyway should that ever change.
      return seesIdentifiers(c.access) ? clear : (maskIdentifier('idNumber', clear) ?? '');
    }
    case 'diseaseCode':
      return label(row.diseaseCode);
    case 'state':
      return label(String(row.state));
    case 'createTime':
      return todayString(row.createTime, c.access.timeZone);
  }
}
