import { ApiError, type ApiResult } from '../../../api/request';
import type {
  CrfExistingChoice,
  CrfFileResult,
  CrfIssue,
  CrfOption,
  CrfPlannedForm,
  CrfUploadResult,
} from '../../../api/study.api';

/** What became of one uploaded file, whichever call carried it. */
export interface UploadOutcome {
  fileName: string;
  ok: boolean;
  /** The refusal as the server worded it (CRF定义有误，未导入, 当前用户无操作权限…). */
  message?: string;
  crfs: CrfOption[];
  errors: CrfIssue[];
  warnings: CrfIssue[];
  notes: string[];
  /** A dry run's plan: what storing the file would create and version. */
  plan?: CrfPlannedForm[];
  /** Stored into the CRFs' drafts (a production study, issue 36), not published. */
  draft?: boolean;
}

function issuesOf(data: unknown): CrfIssue[] {
  const errors = (data as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((issue): issue is CrfIssue => typeof issue === 'object' && issue !== null && 'message' in issue)
    .map((issue) => ({ path: String(issue.path ?? ''), message: String(issue.message) }));
}

/** The answer of POST /api/system/crf (one file). */
export function outcomeOfSingle(fileName: string, answer: ApiResult<CrfUploadResult>): UploadOutcome {
  return {
    fileName,
    ok: true,
    crfs: answer.data.crfs ?? [],
    errors: [],
    warnings: answer.data.warnings ?? [],
    notes: answer.data.notes ?? [],
    ...(answer.data.plan ? { plan: answer.data.plan } : {}),
  };
}

/** A refused single upload: the linter's list travels in data.errors of the 400 answer. */
export function outcomeOfFailure(fileName: string, error: unknown): UploadOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    fileName,
    ok: false,
    message,
    crfs: [],
    errors: error instanceof ApiError ? issuesOf(error.data) : [],
    warnings: [],
    notes: [],
  };
}

/** The answer of POST /api/system/crf/multi: each file judged on its own. */
export function outcomesOfMulti(results: readonly CrfFileResult[]): UploadOutcome[] {
  return results.map((result) => ({
    fileName: result.fileName,
    ok: result.ok,
    crfs: result.crfs ?? [],
    errors: result.errors ?? [],
    warnings: result.warnings ?? [],
    notes: result.notes ?? [],
    ...(result.plan ? { plan: result.plan } : {}),
  }));
}

/** One file of a checked upload with the forms whose titles the study already has. */
export interface PlannedFile {
  file: File;
  plan: CrfPlannedForm[];
}

/** The titles that need the user's choice before anything is stored. */
export function titlesToChoose(files: readonly PlannedFile[]): string[] {
  return [...new Set(files.flatMap((f) => f.plan.filter((p) => p.existing).map((p) => p.title)))];
}

/** Every title that needs a choice has one. */
export function allChosen(
  files: readonly PlannedFile[],
  choices: Readonly<Record<string, CrfExistingChoice>>,
): boolean {
  return titlesToChoose(files).every((title) => Object.hasOwn(choices, title));
}

/** A clean upload is announced in a message; anything to read (refusal, warnings, notes) opens the dialog. */
export function needsDialog(outcomes: readonly UploadOutcome[]): boolean {
  return outcomes.some((o) => !o.ok || o.errors.length > 0 || o.warnings.length > 0 || o.notes.length > 0);
}
