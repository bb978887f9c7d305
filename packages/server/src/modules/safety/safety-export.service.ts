import { and, eq } from 'drizzle-orm';
import {
  AE_ITEMS,
  ciomsReportFields,
  maskName,
  nmpaReportFields,
  SAFETY_MSG,
  type SaeExportFormat,
  type SaeReportSource,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, departments, saeReports, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { toPdf } from '../print/print.service.js';
import { getSubjectByRecord } from '../subjects/subject.service.js';
import { ciomsDocx, nmpaDocx } from './sae-report-docx.js';
import { aeTermCoding, patientMeasures } from './sae-report-extras.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * One SAE report version as the reporter prints it (issue 37): the NMPA 严重不良事件报告表 (Word, or the same as
 * PDF through the print module's LibreOffice conversion) or a CIOMS-I-like English form. A submitted version
 * prints what was sent (its content); a pending one the AE record as it is now. The patient is named by code and
 * masked name only, whatever the caller may see: the report leaves the site. Each export is an audit row.
 */
export async function exportReport(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: { reportId: number; format: SaeExportFormat },
) {
  const [row] = await ctx.db
    .select({
      report: saeReports,
      crfId: crfDataRecords.crfId,
      values: crfDataRecords.values,
      identificationCode: subjects.identificationCode,
      siteId: subjects.deptId,
      siteName: departments.deptName,
      studyName: studies.studyName,
      studyCode: studies.studyCode,
    })
    .from(saeReports)
    .innerJoin(crfDataRecords, eq(crfDataRecords.id, saeReports.crfDataRecordId))
    .innerJoin(subjectRecords, eq(subjectRecords.id, saeReports.subjectRecordId))
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .innerJoin(studies, eq(studies.studyId, saeReports.studyId))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .where(and(eq(saeReports.id, input.reportId), eq(saeReports.studyId, access.studyId)));
  // Another site's report reads as missing, as in the list and the submit route.
  if (!row || !seesSite(access, row.siteId)) throw AppError.notFound('sae.not_found', SAFETY_MSG.reportNotFound);
  const report = row.report;
  const subject = await getSubjectByRecord(ctx, report.subjectRecordId, access);
  // The content is filled when the version is submitted (empty before).
  const values = report.submittedAt ? report.content : row.values;
  const term = typeof values[AE_ITEMS.term] === 'string' ? (values[AE_ITEMS.term] as string) : '';
  const source: SaeReportSource = {
    values,
    kind: report.kind === 'followup' ? 'followup' : 'initial',
    version: report.version,
    submittedAt: report.submittedAt,
    timeZone: access.timeZone,
    studyName: row.studyName,
    studyCode: row.studyCode,
    siteName: row.siteName,
    identificationCode: row.identificationCode,
    maskedName: maskName(subject.subjectName),
    gender: subject.gender,
    birth: subject.birth,
    age: subject.age ?? null,
    // 身高、体重 and the term's MedDRA PT/SOC: read now, by the rules of sae-report-extras.ts (none found: blank).
    measures: await patientMeasures(ctx, report.subjectRecordId, row.crfId),
    coding: await aeTermCoding(ctx, {
      studyId: report.studyId,
      crfId: row.crfId,
      crfDataRecordId: report.crfDataRecordId,
      term,
    }),
  };
  const base = `${row.identificationCode}-v${report.version}`;
  const file =
    input.format === 'cioms'
      ? { fileName: `CIOMS-${base}.docx`, type: DOCX, data: await ciomsDocx(ciomsReportFields(source)) }
      : input.format === 'pdf'
        ? {
            fileName: `严重不良事件报告表-${base}.pdf`,
            type: 'application/pdf',
            data: await toPdf(await nmpaDocx(nmpaReportFields(source))),
          }
        : { fileName: `严重不良事件报告表-${base}.docx`, type: DOCX, data: await nmpaDocx(nmpaReportFields(source)) };
  // Written once the file exists: a PDF the server could not make was not exported.
  await ctx.db.transaction(async (tx) => {
    await audit(tx, user, ctx.clock(), [
      {
        studyId: report.studyId,
        subjectRecordId: report.subjectRecordId,
        crfDataRecordId: report.crfDataRecordId,
        crfId: row.crfId,
        action: 'sae.export',
        itemName: `sae:${report.id}`,
        newValue: { version: report.version, format: input.format },
      },
    ]);
  });
  return file;
}
