import {
  blockingErrors,
  changedItemNames,
  changedMarkNames,
  evaluateForm,
  FORM_STATE,
  genderFromPatient,
  identifierItemsOf,
  isMissingRequired,
  keepInertValues,
  missingMarkIssues,
  MSG,
  reasonRequired,
  recordedValue,
  valuesDroppedByRules,
  type CrfDefinition,
  type FormIssue,
  type IdentifierItems,
  type MissingCode,
  type RangeOverride,
} from '@ecrf/core';
import { sql, type SQL } from 'drizzle-orm';
import { signatures, type crfDataRecords, type SdvMark } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { AuditEntry } from '../audit/audit.service.js';
import { identifiersForSave } from './identifier-values.js';

/**
 * The rules and rows every writer of form values shares (form-write.ts, form-write-batch.ts): the engine's
 * judgement of one record, its audit rows, the signature voiding and its trail row, so that a value is judged and
 * recorded alike whoever writes it.
 */

/** The verification mark of the whole form (beside the items' own). */
export const FORM_SDV_KEY = '__form__';

/** An engine issue as the answers name it. */
export const issueOut = (i: FormIssue) => ({
  itemName: i.item,
  groupName: i.container ?? null,
  groupIndex: i.row ?? null,
  message: i.message,
});

/** What a save judges before it writes: the engine's verdict on the values and what follows from it. */
export interface SaveJudgement {
  after: Record<string, unknown>;
  /** 缺失原因: the record's marks before and after the save (item → code). */
  missingBefore: Record<string, string>;
  missing: Record<string, string>;
  /** Items whose value or mark changed: each is audited, loses its verification mark and voids signatures alike. */
  changed: string[];
  state: number;
  sdv: Record<string, SdvMark>;
  /** Verification marks the change voids (items, and the form's own mark when anything changed). */
  cleared: string[];
  wasSubmitted: boolean;
  reason: string | null;
  warnings: FormIssue[];
}

/**
 * The save's rules on one record, pure: the engine evaluates the values (now, the study's zone, the patient's
 * sex, the other forms' values), a form that is or will be submitted is held to the submit rules, a change to
 * submitted data needs a reason, and changed items lose their verification marks. Throws the save's own
 * refusals (crf.invalid, crf.reason_required). Every writer judges through here (form-write.ts and its batch), so
 * an imported or patient-reported record is held to exactly the page's rules.
 */
export function judgeSave(
  definition: CrfDefinition,
  values: Record<string, unknown>,
  existing:
    | {
        state: number;
        values: Record<string, unknown>;
        sdv: Record<string, SdvMark> | null;
        missing?: Record<string, string> | null;
      }
    | undefined,
  opts: {
    submit: boolean;
    reason?: string | null;
    now: Date;
    timeZone: string;
    gender: number | null | undefined;
    forms: Record<string, Record<string, unknown>>;
    /** 缺失原因: the marks the writer sends, replacing the stored ones; absent, the stored ones stay. */
    missing?: Record<string, string>;
    /** The study's codes a new mark must be one of (none: only the stored marks may stay). */
    missingCodes?: readonly MissingCode[];
    /**
     * The form's identifier items (default: the definition's) and whether the saver may change stored ones (sees
     * them: default true). Masks sent back are put back to the stored values either way (identifier-values.ts).
     */
    identifiers?: { items: IdentifierItems; mayChange: boolean };
    /** 参考范围: the patient's site's ranges that replace items' own for ↑/↓ (form-lab-ranges.ts). */
    referenceRanges?: Record<string, RangeOverride>;
  },
): SaveJudgement {
  const sent = identifiersForSave(
    opts.identifiers?.items ?? identifierItemsOf(definition),
    values,
    existing?.values ?? {},
    opts.identifiers?.mayChange ?? true,
  );
  const missingBefore = existing?.missing ?? {};
  const marks = opts.missing ?? missingBefore;
  const evaluated = evaluateForm(definition, sent, {
    now: opts.now,
    timeZone: opts.timeZone,
    gender: genderFromPatient(opts.gender),
    forms: opts.forms,
    missing: marks,
    referenceRanges: opts.referenceRanges,
  });
  // A value beside a mark, a code the study lacks: refused by name, never one of them dropped unseen.
  const markIssues = missingMarkIssues(definition, sent, marks, missingBefore, opts.missingCodes ?? [], evaluated);
  // A submitted form stays complete: saving it again is held to the submit rules (required row cells too). A new
  // value the rules would not store (a hidden item's) is refused, never cleared unseen: whoever writes.
  const blocking = [
    ...blockingErrors(evaluated, opts.submit || existing?.state === FORM_STATE.submitted),
    ...valuesDroppedByRules(definition, sent, existing?.values ?? {}, evaluated),
    ...markIssues,
  ];
  if (blocking.length > 0) {
    const onlyRequired = blocking.every((e) => isMissingRequired(evaluated, e));
    const msg =
      markIssues.length > 0
        ? markIssues.map((i) => i.message).join('；')
        : onlyRequired
          ? MSG.fillRequired
          : '表单数据有误';
    throw AppError.badRequest('crf.invalid', msg, {
      errors: blocking.map(issueOut),
    });
  }
  const before = existing?.values ?? {};
  // A value the version does not know (an item an amendment removed) stays stored, inert: never deleted by a save.
  const after = keepInertValues(definition, before, evaluated.values as Record<string, unknown>);
  const missing = { ...evaluated.missing };
  const changed = [...new Set([...changedItemNames(before, after), ...changedMarkNames(missingBefore, missing)])];
  const wasSubmitted = existing?.state === FORM_STATE.submitted;
  const reason = opts.reason?.trim() || null;
  if (reasonRequired(existing?.state, changed) && !reason) {
    throw AppError.badRequest('crf.reason_required', '修改已提交的数据需要填写修改原因', { changedItems: changed });
  }
  const state = opts.submit || wasSubmitted ? FORM_STATE.submitted : FORM_STATE.incomplete;
  const { sdv, cleared } = clearSdv(existing?.sdv, changed);
  return {
    after,
    missingBefore,
    missing,
    changed,
    state,
    sdv,
    cleared,
    wasSubmitted,
    reason,
    warnings: evaluated.warnings,
  };
}

/**
 * The verification marks a change leaves: each changed item loses its mark, and the whole form's mark goes when
 * anything changed. Every writer (a save, the batch, an amendment's migration) clears marks by this rule.
 */
export function clearSdv(
  marks: Readonly<Record<string, SdvMark>> | null | undefined,
  changed: readonly string[],
): { sdv: Record<string, SdvMark>; cleared: string[] } {
  const sdv: Record<string, SdvMark> = { ...(marks ?? {}) };
  const cleared = changed.filter((k) => sdv[k]);
  for (const k of cleared) delete sdv[k];
  if (changed.length > 0 && sdv[FORM_SDV_KEY]) {
    delete sdv[FORM_SDV_KEY];
    cleared.push(FORM_SDV_KEY);
  }
  return { sdv, cleared };
}

/** Why a verification mark is void after a save changed its item (an amendment's migration names the amendment). */
export const SDV_CLEAR_REASON = '数据修改后核查失效';

/** A save's audit rows: the record's creation, each changed item, each voided verification mark, the submission. */
export function saveAuditEntries(
  base: { studyId: number; subjectRecordId: number; crfDataRecordId: number; crfId: number; crfVersion: number },
  existing: unknown,
  j: Pick<SaveJudgement, 'after' | 'changed' | 'cleared' | 'reason'> &
    Partial<Pick<SaveJudgement, 'missingBefore' | 'missing'>> & { before: Record<string, unknown> },
  submits: boolean,
  sdvClearReason: string = SDV_CLEAR_REASON,
): AuditEntry[] {
  return [
    ...(existing ? [] : [{ ...base, action: 'crf.create' as const }]),
    ...j.changed.map((itemName) => ({
      ...base,
      action: 'item.update' as const,
      itemName,
      // A mark stands where the value would: [缺失:ND] (missing-codes.ts).
      oldValue: recordedValue(j.before, j.missingBefore ?? {}, itemName),
      newValue: recordedValue(j.after, j.missing ?? {}, itemName),
      reason: j.reason,
    })),
    ...j.cleared.map((itemName) => ({ ...base, action: 'sdv.clear' as const, itemName, reason: sdvClearReason })),
    ...(submits ? [{ ...base, action: 'crf.submit' as const }] : []),
  ];
}

/** The save's refusal when the record changed since it was read (the answer carries the current record). */
export function stale(current: typeof crfDataRecords.$inferSelect, mine: Record<string, unknown>) {
  const changedItems = changedItemNames(current.values, mine);
  return new AppError(409, 'crf.stale_version', '数据已被他人修改，请刷新后重试', {
    current: {
      crfDataRecordId: current.id,
      version: current.version,
      values: current.values,
      updatedBy: current.updatedBy,
      updateTime: current.updatedAt,
    },
    changedItems,
  });
}

/** Why a signature is void: the one text every writer records (signatures' invalidated_reason and the trail). */
export const signatureVoidReason = (crfTitle: string) => `表单“${crfTitle}”的数据在签名后被修改`;

/**
 * Voids the live signatures over the casebooks whose data changed: one UPDATE answering each voided signature and
 * its casebook, a WITH entry of the single save's write or a statement of the batch's.
 */
export function voidSignatures(
  studyId: number,
  casebooks: ReadonlyArray<{ subjectRecordId: number; why: string }>,
  now: Date,
): SQL {
  const rows = casebooks.map((c) => sql`(${c.subjectRecordId}::int, ${c.why}::varchar)`);
  return sql`update ${signatures} as s set invalidated_at = ${now.toISOString()}::timestamptz, invalidated_reason = v.why
    from (values ${sql.join(rows, sql`, `)}) as v(subject_record_id, why)
    where s.study_id = ${studyId} and s.subject_record_id = v.subject_record_id and s.invalidated_at is null
    returning s.id, s.subject_record_id`;
}

/** The trail's rows for the signatures voided: one per casebook, naming them (ids ascending) and why. */
export function voidedSignatureEntries(
  studyId: number,
  casebooks: ReadonlyArray<{ subjectRecordId: number; why: string }>,
  voided: ReadonlyArray<{ id: number | string; subject_record_id: number | string }>,
): AuditEntry[] {
  return casebooks.flatMap(({ subjectRecordId, why }) => {
    const ids = voided
      .filter((v) => Number(v.subject_record_id) === subjectRecordId)
      .map((v) => Number(v.id))
      .sort((a, b) => a - b);
    return ids.length > 0
      ? [{ studyId, subjectRecordId, action: 'subject.sign_invalidated' as const, reason: why, oldValue: ids }]
      : [];
  });
}
