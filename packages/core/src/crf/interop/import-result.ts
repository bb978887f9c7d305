import { formatIssue } from '../compile-form.js';
import type { CrfDefinition } from '../crf-definition.schema.js';
import { lintDefinition } from '../linter.js';

/** One finding of an importer: an error refuses the form; a warning says what was not carried over and why. */
export interface ImportIssue {
  severity: 'error' | 'warning';
  /** The form (REDCap form name, sheet name, ODM FormDef OID). */
  form?: string | undefined;
  /** The field (REDCap variable, item name, ODM ItemDef OID). */
  field?: string | undefined;
  /** 1-based row in the source file, where there is one. */
  row?: number | undefined;
  message: string;
}

export interface ImportResult {
  /** No error anywhere: only then should the upload be accepted, all forms together. */
  ok: boolean;
  /** The forms that passed the linter. */
  definitions: CrfDefinition[];
  issues: ImportIssue[];
}

export function formatImportIssue(issue: ImportIssue): string {
  const where = [
    issue.form && `表单 ${issue.form}`,
    issue.row !== undefined && `第 ${issue.row} 行`,
    issue.field && `字段 ${issue.field}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `${where ? `${where}：` : ''}${issue.message}`;
}

/** Lints each imported form the way an upload is linted and gathers every finding. */
export function finishImport(
  candidates: Array<{ form: string; definition: CrfDefinition; rowOf?: (name: string) => number | undefined }>,
  issues: ImportIssue[],
): ImportResult {
  const definitions: CrfDefinition[] = [];
  for (const { form, definition, rowOf } of candidates) {
    const lint = lintDefinition(definition);
    for (const issue of [...lint.errors, ...lint.warnings]) {
      issues.push({
        severity: issue.severity,
        form,
        field: issue.name,
        row: issue.name ? rowOf?.(issue.name) : undefined,
        message: formatIssue(issue),
      });
    }
    if (lint.ok && lint.definition) definitions.push(lint.definition);
  }
  if (candidates.length === 0 && !issues.some((i) => i.severity === 'error')) {
    // An upload that yields nothing must say why, never answer an empty list of errors.
    issues.push({ severity: 'error', message: '文件中没有可导入的表单' });
  }
  return { ok: !issues.some((i) => i.severity === 'error'), definitions, issues };
}

/** Native JSON: one definition or an array of them. */
export function importJson(text: string): ImportResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return {
      ok: false,
      definitions: [],
      issues: [{ severity: 'error', message: `不是有效的 JSON：${(error as Error).message}` }],
    };
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const issues: ImportIssue[] = [];
  const candidates = list.map((definition, i) => ({
    form: String((definition as { title?: unknown })?.title ?? `#${i + 1}`),
    definition: definition as CrfDefinition,
  }));
  return finishImport(candidates, issues);
}

export function exportJson(definitions: CrfDefinition | CrfDefinition[]): string {
  return JSON.stringify(definitions, null, 2);
}
