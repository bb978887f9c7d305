/** The plan of an import: what each row of a workbook would write, as planImport answers it and the run writes it. */
import type { ImportIssue, ImportRowPlan } from '@ecrf/core';

export interface Form {
  crfId: number;
  title: string;
  currentVersion: number;
  repeatable: boolean;
}

export interface StoredRecord {
  id: number;
  subjectRecordId: number;
  crfId: number;
  crfVersion: number;
  state: number;
  version: number;
  values: Record<string, unknown>;
  missing: Record<string, string>;
}

/** One record the file writes: a patient's form (a repeatable form's record by its number). */
export interface Target {
  sheet: string;
  row: number;
  code: string;
  subjectRecordId: number;
  form: Form;
  existing: StoredRecord | null;
  /** The stored values with the file's cells over them: what the save is given. */
  values: Record<string, unknown>;
  /** 缺失原因: the stored marks with the file's over them (a cell holding a code marks, a value clears). */
  missing: Record<string, string>;
  changed: string[];
  submits: boolean;
  errors: ImportIssue[];
  plan: ImportRowPlan;
}

export interface ImportPlan {
  sheetErrors: ImportIssue[];
  /** Rows that name no patient of the study (or are otherwise refused before any form is looked at). */
  rowErrors: ImportRowPlan[];
  targets: Target[];
}

export interface PlanOptions {
  submit: boolean;
  /**
   * Whether each row's changes are spelled out (old and new text per item) for the preview. The import itself
   * only needs which items change; leaving the texts out saves a good share of its planning time and memory.
   */
  details?: boolean;
}
