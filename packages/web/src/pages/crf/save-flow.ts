import { changedItemNames, changedMarkNames, MSG, reasonRequired, sameValue, type MissingMarks } from '@ecrf/core';
import { type CrfDataRecord, type CrfSaveBody, type ItemIssue, type StaleRecord } from '../../api/crf.api';
import { ApiError } from '../../api/request';
import { cellKey } from '../../crf';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';

/**
 * The pure parts of saving a form: the body, what changed, when a reason is needed, what a refusal
 * means, and the local draft that keeps unsaved values safe. The page wires them to React.
 */

export type FormValues = Record<string, unknown>;

/** One rule for "changed", shared with the server (canonical values: key order, 150 vs "150", empties). */
export { changedItemNames, sameValue };

/** What a save would change: the items whose value differs, then those whose missing-data mark (缺失原因) does. */
export function changedNames(
  before: FormValues,
  after: FormValues,
  beforeMarks: MissingMarks = NO_MARKS,
  afterMarks: MissingMarks = NO_MARKS,
): string[] {
  const names = changedItemNames(before, after);
  return [...names, ...changedMarkNames(beforeMarks, afterMarks).filter((name) => !names.includes(name))];
}

export const NO_MARKS: MissingMarks = Object.freeze({});

/** A fresh id per user action: a retried call with the same id answers the first result (idempotent). */
export function newRequestId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export interface SaveRequest {
  subjectRecordId: number;
  crfId: number;
  record: Pick<CrfDataRecord, 'id' | 'version'> | null;
  values: FormValues;
  submit: boolean;
  reason?: string | null;
  requestId: string;
  /**
   * 缺失原因: the record's marks, the whole map (an item left out is cleared). Absent: the server keeps the marks
   * the record has.
   */
  missing?: MissingMarks;
}

/** CRF-23: the body of PUT /api/v3/business/crf; a new record is version 0 without an id. */
export function buildSaveBody(request: SaveRequest): CrfSaveBody {
  const reason = request.reason?.trim();
  return {
    subjectRecordId: request.subjectRecordId,
    crfId: request.crfId,
    crfDataRecordId: request.record?.id ?? null,
    version: request.record?.version ?? 0,
    values: request.values,
    submit: request.submit,
    reason: reason ? reason : null,
    requestId: request.requestId,
    ...(request.missing ? { missing: { ...request.missing } } : {}),
  };
}

/** A change to a submitted record needs a reason (修改原因); saving it unchanged does not. */
export function needsReason(
  record: Pick<CrfDataRecord, 'state'> | null,
  before: FormValues,
  after: FormValues,
  beforeMarks?: MissingMarks,
  afterMarks?: MissingMarks,
): boolean {
  return reasonRequired(record?.state, changedNames(before, after, beforeMarks, afterMarks));
}

/** The reason box's rule: something other than blanks. */
export function reasonError(reason: string | null | undefined): string | null {
  return reason && reason.trim() ? null : CRF_PAGE_TEXT.reasonRequired;
}

export type SaveFailure =
  | { kind: 'invalid'; message: string; issues: ItemIssue[]; missingOnly: boolean }
  | { kind: 'reason'; message: string; changedItems: string[] }
  | { kind: 'stale'; message: string; stale: StaleRecord }
  | { kind: 'network'; message: string }
  | { kind: 'failed'; message: string };

const STALE_MESSAGE = '数据已被他人修改，请刷新后重试';
const INVALID_MESSAGE = '表单数据有误';

function isIssue(value: unknown): value is ItemIssue {
  return typeof value === 'object' && value !== null && typeof (value as ItemIssue).itemName === 'string';
}

/** What a refused save means for the page (CRF-28). */
export function classifySaveError(error: unknown): SaveFailure {
  if (!(error instanceof ApiError)) return { kind: 'network', message: MSG.systemError };
  const data = (error.data ?? {}) as { errors?: unknown; changedItems?: unknown; current?: unknown };
  if (error.status === 409 || error.code === 409) {
    if (data.current && typeof data.current === 'object') {
      const changedItems = Array.isArray(data.changedItems) ? (data.changedItems as string[]) : [];
      return {
        kind: 'stale',
        message: error.message || STALE_MESSAGE,
        stale: { current: data.current as StaleRecord['current'], changedItems },
      };
    }
    return { kind: 'failed', message: error.message || STALE_MESSAGE };
  }
  if (error.status === null && error.code === 0) return { kind: 'network', message: error.message || MSG.systemError };
  if (error.status === 400 || error.code === 400) {
    if (Array.isArray(data.errors) && data.errors.some(isIssue)) {
      const issues = data.errors.filter(isIssue);
      return {
        kind: 'invalid',
        message: error.message || INVALID_MESSAGE,
        issues,
        missingOnly: error.message === MSG.fillRequired,
      };
    }
    if (Array.isArray(data.changedItems)) {
      return { kind: 'reason', message: error.message, changedItems: data.changedItems as string[] };
    }
  }
  return { kind: 'failed', message: error.message || MSG.failed };
}

/** A failure worth one more try with the same requestId: the answer may simply not have arrived. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === null || error.status === 502 || error.status === 503 || error.status === 504;
}

/** The server's per-item messages in the shape CrfForm's errors prop takes (row cells as `list[0].child`). */
export function issuesToErrors(issues: readonly ItemIssue[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const key =
      issue.groupName && issue.groupIndex !== null && issue.groupIndex !== undefined
        ? cellKey(issue.groupName, issue.groupIndex, issue.itemName)
        : issue.itemName;
    const list = (out[key] ??= []);
    if (!list.includes(issue.message)) list.push(issue.message);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Drafts: a nurse's unsaved values survive a closed tab, a crash or a lost session.

export interface DraftChange {
  /** The record's value when the edit started: tells later whether someone else changed it since. */
  from: unknown;
  to: unknown;
}

export interface CrfDraft {
  /** The record version the edits started from; 0 for a new record. */
  baseVersion: number;
  savedAt: string;
  changes: Record<string, DraftChange>;
  /** 缺失原因: the whole map of marks when they differ from the record's (absent: the marks are as loaded). */
  missing?: Record<string, string>;
}

export const DRAFT_PREFIX = 'ecrf.crfDraft';

/**
 * One draft per user, casebook, form and record ("new" for a record not saved yet): on a shared
 * ward computer one nurse is never offered another's unsaved values.
 */
export function draftKey(
  userId: number | null | undefined,
  subjectRecordId: number,
  crfId: number,
  crfDataRecordId: number | null | undefined,
): string {
  return `${DRAFT_PREFIX}:${userId ?? 'anon'}:${subjectRecordId}:${crfId}:${crfDataRecordId ?? 'new'}`;
}

/** The draft of the user's values against what was loaded; null when nothing differs. */
export function makeDraft(
  base: FormValues,
  values: FormValues,
  baseVersion: number,
  now: Date = new Date(),
  marks?: { base: MissingMarks; current: MissingMarks },
): CrfDraft | null {
  const names = changedItemNames(base, values);
  const marksChanged = marks !== undefined && changedMarkNames(marks.base, marks.current).length > 0;
  if (names.length === 0 && !marksChanged) return null;
  const changes: Record<string, DraftChange> = {};
  for (const name of names) changes[name] = { from: base[name] ?? null, to: values[name] ?? null };
  return {
    baseVersion,
    savedAt: now.toISOString(),
    changes,
    ...(marksChanged ? { missing: { ...marks.current } } : {}),
  };
}

export interface DraftStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function writeDraft(storage: DraftStorage, key: string, draft: CrfDraft | null): void {
  try {
    if (draft) storage.setItem(key, JSON.stringify(draft));
    else storage.removeItem(key);
  } catch {
    // A full or blocked storage must not stop the nurse typing; the values are still in the form.
  }
}

export function readDraft(storage: DraftStorage, key: string): CrfDraft | null {
  try {
    const text = storage.getItem(key);
    if (!text) return null;
    const draft = JSON.parse(text) as CrfDraft;
    if (!draft || typeof draft !== 'object' || typeof draft.changes !== 'object' || draft.changes === null) return null;
    return Object.keys(draft.changes).length > 0 || draft.missing ? draft : null;
  } catch {
    return null;
  }
}

export interface DraftReview {
  /** The loaded values with the draft's edits applied. */
  values: FormValues;
  /** Items the draft changes that still differ from the record. */
  items: string[];
  /** Items someone else changed after the draft was started: restoring would replace their value. */
  conflicts: string[];
  /** The marks to restore (缺失原因), when the draft's differ from the record's. */
  missing?: MissingMarks;
}

/**
 * What restoring a draft onto the record as loaded now would do. An edit already saved (the record
 * holds it) is dropped; an item changed by someone else since the draft began is a conflict the
 * user sees before choosing.
 */
export function reviewDraft(draft: CrfDraft, current: FormValues, currentMarks: MissingMarks = NO_MARKS): DraftReview {
  const values: FormValues = { ...current };
  const items: string[] = [];
  const conflicts: string[] = [];
  for (const [name, change] of Object.entries(draft.changes)) {
    if (sameValue(current[name], change.to)) continue;
    items.push(name);
    values[name] = change.to;
    if (!sameValue(current[name], change.from)) conflicts.push(name);
  }
  const marked = draft.missing ? changedMarkNames(currentMarks, draft.missing) : [];
  if (marked.length === 0) return { values, items, conflicts };
  for (const name of marked) if (!items.includes(name)) items.push(name);
  return { values, items, conflicts, missing: draft.missing! };
}
