import type { SpineBandSet } from '../../spine/diagnosis.js';
import type { RangeOverride } from '../lab-ranges.js';
import type { Gender } from '../reference-range.js';

/**
 * The CRF amendment engine's vocabulary (issue 36: amendments that carry the data). A new version of a form is
 * compared with the old one (diffDefinitions), and every live record is planned (planRecordMigration) and moved
 * (migrateRecordValues) by the same engine the save uses: a moved record stores what a save of its values under the
 * new version would store, except that a removed item's value stays inert in the stored values.
 *
 * A change names the item by its top-level stored key (an addition `<name>_addition` and a unit `<name>_unit` are
 * keys of their own), or, for a cell of a list group or table, by its column with `container` and `row`. oldValue
 * is the stored value, newValue the migrated one. An item has at most one change of each kind. What each kind means:
 * - removed: the item is not in the new version; its value stays in the stored values untouched (inert, not shown,
 *   still exported). Changes no stored value.
 * - hidden: the new version's display conditions (skip logic, a hidden flag, an addition box no chosen option asks
 *   for, a unit no longer offered) hide it; the value is cleared as a save clears it. Changes the stored value.
 * - converted: the item is retyped (or its value's stored shape differs under the new version) and the value is
 *   stored in the new type's shape without loss. Changes the stored value.
 * - calculation: the new version's calculation gives another result. Changes the stored value.
 * - invalid: the value breaks a rule of the new version it did not break before (its own rule or a cross-field check;
 *   blank values are not judged), or cannot convert to its new type without loss (then kept as it was, though a later
 *   save under the new version would reshape it). Changes no stored value by itself.
 * - outOfRange: the value is outside the new version's bounds (validate.min/max, a slider's range) or reference range
 *   (for the record's sex) where it was not before. Changes no stored value by itself.
 */
export type ValueChangeKind = 'removed' | 'hidden' | 'invalid' | 'outOfRange' | 'calculation' | 'converted';

/** The kinds that change what is stored (they drive signature and SDV voiding). */
export const VALUE_CHANGING_KINDS: readonly ValueChangeKind[] = ['hidden', 'converted', 'calculation'];

export interface ItemRef {
  name: string;
  label: string;
  type?: string;
}

export interface DefinitionDiff {
  added: ItemRef[];
  removed: ItemRef[];
  /** A removed and an added item with the same label and type: a likely rename. Values are NOT carried across. */
  renamed: Array<{ from: string; to: string; label: string }>;
  retyped: Array<{ name: string; label: string; fromType: string; toType: string }>;
  relabelled: Array<{ name: string; fromLabel: string; toLabel: string }>;
}

export interface PlannedChange {
  itemName: string;
  label: string;
  kind: ValueChangeKind;
  oldValue: unknown;
  newValue: unknown;
  message?: string;
  /**
   * For a cell of a list group or table: the list's name and the row's index (from 0), as FormIssue says them;
   * itemName is then the column. Absent for a top-level item, whose oldValue/newValue are its stored values.
   */
  container?: string;
  row?: number;
}

export interface AmendmentRecord {
  id: number;
  values: Record<string, unknown>;
  submitted: boolean;
  signed: boolean;
  sdvVerified: boolean;
  locked: boolean;
  /** The subject's sex for reference ranges (as the save passes it: genderFromPatient). Absent: none. */
  gender?: Gender | null;
  /** The patient's other forms' values that form() reads, by form title (as the save passes them). */
  forms?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
  /** 缺失原因: the record's missing-data marks (crf_data_records.missing), evaluated as the save does. */
  missing?: Readonly<Record<string, string>>;
  /** 参考范围: the patient's site ranges that replace items' own for ↑/↓ (as the save passes them). Absent: none. */
  referenceRanges?: Readonly<Record<string, RangeOverride>>;
}

export interface RecordImpact {
  recordId: number;
  changes: PlannedChange[];
  /** The stored values differ after the migration (sameValue over every key): voids signatures and SDV. */
  valuesChange: boolean;
  submitted: boolean;
  signed: boolean;
  sdvVerified: boolean;
  locked: boolean;
  /** Whether the record would move: false for a locked record (never moved, still reported). */
  willMove: boolean;
}

export interface ImpactSummary {
  fromVersion?: number;
  toVersion?: number;
  diff: DefinitionDiff;
  records: {
    total: number;
    submitted: number;
    signed: number;
    sdvVerified: number;
    locked: number;
    /** Records whose stored values would change (valuesChange). */
    changed: number;
    unchanged: number;
  };
  findings: Array<{ kind: ValueChangeKind; itemName: string; label: string; count: number }>;
}

export interface ImpactReport extends ImpactSummary {
  perRecord: RecordImpact[];
}

export interface MigrationOptions {
  /** Today in the study's zone, YYYY-MM-DD: what today() reads and date rules judge against. */
  today: string;
  /** The study's IANA zone (the save's writerTimeZone). */
  timeZone: string;
  /**
   * The instant now() reads (the server's clock). Absent: noon of `today` in `timeZone`. When given it must fall
   * on `today` in `timeZone`.
   */
  now?: Date;
  /** The study's spine diagnosis bands, as the save passes them (absent: the spec's). */
  spineBandSet?: SpineBandSet;
  /** The version numbers, copied into the report. */
  fromVersion?: number;
  toVersion?: number;
}
