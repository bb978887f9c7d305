/** What a plan shows and counts: the preview's answer, its rows grouped by patient, and all its errors. */
import { PREVIEW_ROW_LIMIT, type ImportIssue, type ImportPreview } from '@ecrf/core';
import type { ImportPlan, Target } from './data-import.types.js';

/** The preview's answer: counts, sheet errors and the rows (those with errors first, at most PREVIEW_ROW_LIMIT). */
export function previewOf(plan: ImportPlan, fileName: string, sha256: string): ImportPreview {
  const all = [...plan.rowErrors, ...plan.targets.map((t) => t.plan)];
  const byPatient = patientsOf(plan);
  const rows = [...all.filter((r) => r.errors.length > 0), ...all.filter((r) => r.errors.length === 0)].sort(
    (a, b) => Number(b.errors.length > 0) - Number(a.errors.length > 0),
  );
  return {
    fileName,
    sha256,
    summary: {
      rows: all.length,
      patients: new Set(all.map((r) => r.identificationCode)).size,
      creates: all.filter((r) => r.errors.length === 0 && r.action === 'create').length,
      updates: all.filter((r) => r.errors.length === 0 && r.action === 'update').length,
      unchanged: all.filter((r) => r.errors.length === 0 && r.action === 'unchanged').length,
      errors: plan.sheetErrors.length + all.reduce((n, r) => n + r.errors.length, 0),
      validPatients: plan.sheetErrors.length > 0 ? 0 : [...byPatient.values()].filter((p) => p.valid).length,
    },
    sheetErrors: plan.sheetErrors,
    rows: rows.slice(0, PREVIEW_ROW_LIMIT),
    truncated: rows.length > PREVIEW_ROW_LIMIT,
  };
}

export function patientsOf(plan: ImportPlan) {
  const out = new Map<string, { valid: boolean; targets: Target[] }>();
  for (const r of plan.rowErrors) out.set(r.identificationCode, { valid: false, targets: [] });
  for (const t of plan.targets) {
    const p = out.get(t.code) ?? { valid: true, targets: [] };
    p.targets.push(t);
    if (t.errors.length > 0) p.valid = false;
    out.set(t.code, p);
  }
  return out;
}

export const planErrors = (plan: ImportPlan): ImportIssue[] => [
  ...plan.sheetErrors,
  ...plan.rowErrors.flatMap((r) => r.errors),
  ...plan.targets.flatMap((t) => t.errors),
];
