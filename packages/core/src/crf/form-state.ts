/**
 * What the engine is given (EvaluationContext, EvaluateOptions) and what it answers (FormState), with the judgements
 * read off an answer alone: which errors refuse a save. Kept apart from the evaluation so that the writers, the import
 * and the amendment planner that only read a state need not follow the evaluation's code.
 */
import { hasAnyPermission } from '../access.js';
import { isEmptyValue } from './field-rules.js';
import type { RangeOverride } from './lab-ranges.js';
import type { Gender } from './reference-range.js';
import type { SpineBandSet } from '../spine/diagnosis.js';

export interface EvaluationContext {
  /** The instant "now" and today() mean; the server passes its clock, tests a fixed one. */
  now: Date;
  /** The study's zone for today/now; China Standard Time by default. */
  timeZone?: string;
  /** The subject's gender for reference ranges (see reference-range.ts for the encodings). */
  gender?: Gender | null;
  /** False when the user lacks business.crf.save and business.crf.submit (forms §4). */
  editable?: boolean;
  /** Study operate mode (typeOperate) disables every widget (forms §4). */
  operate?: boolean;
  /**
   * The values of the patient's other forms that form("标题", "item") reads, by form title: the newest
   * live record of each (formReferencesOf says which forms and items). A form absent here reads blank.
   */
  forms?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
  /** The study's 脊柱诊断分级标准: the bands a spine measurement widget diagnoses by (the spec's when absent). */
  spineBandSet?: SpineBandSet;
  /**
   * 缺失原因 (issue 37): items marked with one of the study's missing-data codes instead of a value, by item name
   * (crf_data_records.missing). Only the form's top-level items are marked; see markedCode for the rule.
   */
  missing?: Readonly<Record<string, string>>;
  /**
   * 参考范围 (issue 37): the patient's site's ranges that replace an item's own for ↑/↓, by top-level item name
   * (lab-ranges.ts rangesForForm; a stored record's via overridesFromUsed).
   */
  referenceRanges?: Readonly<Record<string, RangeOverride>>;
}

export interface ItemState {
  key: string;
  visible: boolean;
  required: boolean;
  readOnly: boolean;
  /** The value after the rules: cleared when hidden, calculated when the item has calc. */
  value: unknown;
  calculated: boolean;
  errors: string[];
  warnings: string[];
  range: 'low' | 'high' | null;
  /** Whether the addition input of a choice item shows (the chosen option is in additionIndex). */
  additionVisible: boolean;
  /** For list groups and tables: the state of each child in each row. */
  rows?: Array<Record<string, ItemState>>;
  /** The missing-data code the item is marked with (缺失原因): it then holds no value and raises nothing. */
  missing?: string;
}

export interface FormIssue {
  /** The item's name (for a row child, the child's name). */
  item: string;
  /** For a row child: the list group or table and the row index. */
  container?: string;
  row?: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface FormState {
  items: Readonly<Record<string, ItemState>>;
  /** Values to store: hidden items cleared, calculations applied, shapes canonical. */
  values: Readonly<Record<string, unknown>>;
  /** Missing-data marks to store: those of shown items (a hidden item's mark is cleared as its value is). */
  missing: Readonly<Record<string, string>>;
  /** Errors block submit; the server's verdict on these is authoritative. */
  errors: FormIssue[];
  /** Warnings never block; the server raises them as system queries. */
  warnings: FormIssue[];
  valid: boolean;
}

export interface EvaluateOptions {
  /** The state returned for the same definition before the change. */
  previous?: FormState;
  /** Top-level value keys that changed since `previous`; only what depends on them re-evaluates. */
  changed?: readonly string[];
}

export const CRF_EDIT_PERMISSIONS = ['business.crf.save', 'business.crf.submit'] as const;

/** forms §4: the form is editable with business.crf.save or business.crf.submit. */
export function isFormEditable(permissions: readonly string[]): boolean {
  return hasAnyPermission(permissions, CRF_EDIT_PERMISSIONS);
}

/** Whether an issue is a required item (or a required cell of a list-group or table row) left blank. */
export function isMissingRequired(state: FormState, issue: FormIssue): boolean {
  const item =
    issue.container !== undefined
      ? state.items[issue.container]?.rows?.[issue.row ?? -1]?.[issue.item]
      : state.items[issue.item];
  return Boolean(item?.required) && isEmptyValue(item?.value);
}

/**
 * The errors that refuse a save (forms §4, CRF-22/CRF-27). A form that is, or is being, submitted must
 * be complete: every error counts, blank required items and blank required row cells alike. A form
 * still in progress may be saved with blanks; its other errors (a wrong type, a range, a failed check)
 * still refuse it.
 */
export function blockingErrors(state: FormState, complete: boolean): FormIssue[] {
  return complete ? state.errors : state.errors.filter((issue) => !isMissingRequired(state, issue));
}
