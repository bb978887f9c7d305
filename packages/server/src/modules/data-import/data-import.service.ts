/**
 * Reading a workbook against the study: the plan of what it would write (planImport) and the preview of it. The
 * import run that writes a plan: data-import-run.service.ts; the template workbook: data-import-template.service.ts.
 * The plan's pieces: the sheets' headers (data-import-sheets.ts), the study's patients and records for the file
 * (data-import-stored.ts), one row judged (data-import-row.ts), and what a plan shows (data-import-preview.ts).
 */
import { lockRefusals } from '../locks/lock-gate.js';
import type { ImportIssue, ImportRowPlan } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import type { ReadSheet } from './data-import.pool.js';
import { timeSlices } from '../crf-data/form-write-batch.js';
import { codeOf, dataRows, sheetPlansOf, studyForms } from './data-import-sheets.js';
import { otherValuesLoader, patientsByCode, storedRecordsOf } from './data-import-stored.js';
import { judgeRow } from './data-import-row.js';
import type { ImportPlan, PlanOptions, StoredRecord, Target } from './data-import.types.js';

export { sheetNamesOf, studyForms } from './data-import-sheets.js';
export { patientsOf, planErrors, previewOf } from './data-import-preview.js';
export type { ImportPlan, PlanOptions, Target } from './data-import.types.js';

/**
 * What a workbook would do, judged before anything is written: per sheet and row the patient, the form and
 * each item's old and new value, and every error. Values are judged by the engine exactly as the save
 * judges them (evaluateForm, then blockingErrors with the submit rules for a form that is or will be
 * submitted); the save judges them again when the import writes, and its verdict is final.
 */
export async function planImport(
  ctx: AppContext,
  access: StudyAccess,
  sheets: ReadSheet[],
  options: PlanOptions,
): Promise<ImportPlan> {
  const forms = await studyForms(ctx.db, access.studyId);
  const missingCodes = await getMissingCodes(ctx, access.studyId);
  const sheetErrors: ImportIssue[] = [];
  const plans = await sheetPlansOf(ctx, access, sheets, forms, options.submit, sheetErrors);

  const codes = [...new Set(plans.flatMap((p) => dataRows(p).map((r) => codeOf(p, r.cells))))].filter(Boolean);
  const { patients, otherSites } = await patientsByCode(ctx.db, access, codes);
  const crfIds = [...new Set(plans.map((p) => p.form.crfId))];
  const recordIds = [...new Set([...patients.values()].map((p) => p.subjectRecordId))];
  const records = await storedRecordsOf(ctx.db, access.studyId, crfIds, recordIds);

  const rowErrors: ImportRowPlan[] = [];
  const targets: Target[] = [];
  const taken = new Map<string, number>();
  const newInstances = new Map<string, number>();
  const othersOf = otherValuesLoader(ctx.db, access.studyId, recordIds);
  const now = ctx.clock();
  const judging = { ctx, access, options, missingCodes, now, othersOf };
  const slice = timeSlices();
  for (const p of plans) {
    const broken = sheetErrors.some((e) => e.sheet === p.sheet.name);
    for (const { row, cells } of dataRows(p)) {
      await slice();
      const code = codeOf(p, cells);
      const plan: ImportRowPlan = {
        sheet: p.sheet.name,
        row,
        identificationCode: code,
        crfTitle: p.form.title,
        action: 'unchanged',
        submitted: false,
        changes: [],
        errors: [],
      };
      const fail = (message: string, column: string | null = null) =>
        plan.errors.push({ sheet: p.sheet.name, row, column, message });
      const patient = patients.get(code);
      if (broken) continue;
      if (!code) fail('患者编号为空', p.sheet.header[p.codeAt] ?? null);
      else if (otherSites.has(code)) fail('患者不在您的中心范围内', p.sheet.header[p.codeAt] ?? null);
      else if (!patient) fail('本项目中没有此患者编号', p.sheet.header[p.codeAt] ?? null);
      if (!patient) {
        rowErrors.push(plan);
        continue;
      }
      const stored = records.get(`${patient.subjectRecordId}:${p.form.crfId}`) ?? [];
      let existing: StoredRecord | null = stored[0] ?? null;
      let instance = 1;
      if (p.form.repeatable) {
        const header = p.sheet.header[p.instanceAt] ?? null;
        const raw = cells[p.instanceAt];
        instance = Number(typeof raw === 'string' ? raw.trim() : raw);
        if (!Number.isInteger(instance) || instance < 1) {
          fail('记录序号应为正整数', header);
          rowErrors.push(plan);
          continue;
        }
        existing = stored[instance - 1] ?? null;
        const formKey = `${patient.subjectRecordId}:${p.form.crfId}`;
        if (!existing) {
          const next = stored.length + (newInstances.get(formKey) ?? 0) + 1;
          if (instance !== next) {
            fail(`记录序号应连续，下一条新记录为 ${next}`, header);
            rowErrors.push(plan);
            continue;
          }
          newInstances.set(formKey, next - stored.length);
        }
      }
      const targetKey = `${patient.subjectRecordId}:${p.form.crfId}:${instance}`;
      const first = taken.get(targetKey);
      if (first !== undefined) {
        fail(`与第${first}行是同一患者的同一表单记录`);
        rowErrors.push(plan);
        continue;
      }
      taken.set(targetKey, row);

      targets.push(await judgeRow(judging, p, { row, cells, code, patient, existing, plan, fail }));
    }
  }
  // Locked casebooks and forms, and a finished study (docs/multi-centre.md): the preview names the lock, in the words
  // the write would refuse them with, so a dry run promises nothing the import cannot keep.
  if (targets.length > 0) {
    const lockOf = await lockRefusals(
      ctx.db,
      access.studyId,
      targets.map((t) => ({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id ?? null })),
    );
    for (const t of targets) {
      const refusal = lockOf({ subjectRecordId: t.subjectRecordId, crfDataRecordId: t.existing?.id ?? null });
      if (refusal) t.errors.push({ sheet: t.sheet, row: t.row, column: null, message: refusal.message });
    }
  }
  return { sheetErrors, rowErrors, targets };
}
