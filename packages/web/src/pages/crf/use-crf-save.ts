import { useCallback, useEffect, useRef, useState } from 'react';
import { App } from 'antd';
import type { CrfNode, MissingMarks } from '@ecrf/core';
import {
  crfRecordApi,
  FORM_STATE,
  type CrfRecordDetail,
  type CrfSaveBody,
  type CrfSaveResult,
  type ItemIssue,
  type StaleRecord,
} from '../../api/crf.api';
import type { ApiResult } from '../../api/request';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';
import { useRecordSavedElsewhere } from '../../realtime/use-record-saved-elsewhere';
import { useSession } from '../../stores/session.store';
import { positiveIdOf } from '../../utils/positive-id';
import { itemTitle } from './crf-values';
import { buildErrorList, errorMessage, type ErrorListEntry } from './error-list';
import { locateItem } from './locate-item';
import {
  buildSaveBody,
  changedItemNames,
  changedNames,
  classifySaveError,
  draftKey,
  isRetryable,
  issuesToErrors,
  makeDraft,
  needsReason,
  newRequestId,
  writeDraft,
  type FormValues,
} from './save-flow';
import { useDraftOffer } from './use-draft-offer';
import { useUnsavedGuard } from './use-unsaved-guard';

const t = CRF_PAGE_TEXT;

/** How long typing may pause before the draft is written (and it is always written on leaving). */
const DRAFT_DELAY_MS = 300;
/** A lost answer is asked again with the same requestId: the server answers a repeat with the first result. */
const SAVE_ATTEMPTS = 3;

interface Saved {
  id: number | null;
  version: number;
  state: number | null;
  /** The values as last loaded or saved: what "changed" is measured against. */
  base: FormValues;
  /** The missing-data marks (缺失原因) as last loaded or saved. */
  baseMarks: MissingMarks;
}

/** The items a refused save named, listed above the form; the first one is scrolled to once rendered. */
export interface SaveErrorList {
  message: string;
  entries: ErrorListEntry[];
}

export interface CrfSaveOptions {
  subjectRecordId: number;
  crfId: number;
  studyId: number;
  detail: CrfRecordDetail;
  /** The values the editor opened with. */
  loaded: FormValues;
  /** The missing-data marks (缺失原因) the editor opened with: the record's. */
  loadedMarks: MissingMarks;
  nodes: ReadonlyMap<string, CrfNode>;
  /** The form's item names in display order: a refusal lists its items in it. */
  itemOrder: readonly string[];
  /** After a save: the page refreshes the menu and records, and names a new record in the address. */
  onSaved: (result: CrfSaveResult, created: boolean) => void;
  /** Reload the record from the server (after a conflict, or a save elsewhere). */
  onReload: () => void;
  /** The unsaved flag (forms §4 changeSaveStatus): queries wait until the values are saved. */
  onDirtyChange?: ((dirty: boolean) => void) | undefined;
  /** Lets the page's own address change through the unsaved-changes guard. */
  bypassGuardRef: React.RefObject<boolean>;
  /** Shows values put into the form from outside it (a draft restored). */
  showValues: (values: FormValues) => void;
  /** Shows marks put into the form from outside it (a draft restored). */
  showMarks: (marks: MissingMarks) => void;
}

async function saveWithRetry(body: CrfSaveBody): Promise<ApiResult<CrfSaveResult>> {
  let lastError: unknown;
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt += 1) {
    try {
      return await crfRecordApi.save(body);
    } catch (error) {
      lastError = error;
      if (!isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
  throw lastError;
}

/**
 * The save and submit flow of one open record (forms §4): the values as last typed, the unsaved flag and its
 * guard, the draft in local storage (and a draft offered back on opening), the save with its retries, and what a
 * refusal asks of the nurse (the items in error, a reason, a conflict). Typing renders nothing here: the latest
 * values live in a ref, and only the unsaved flag is state.
 */
export function useCrfSave({
  subjectRecordId,
  crfId,
  studyId,
  detail,
  loaded,
  loadedMarks,
  nodes,
  itemOrder,
  onSaved,
  onReload,
  onDirtyChange,
  bypassGuardRef,
  showValues,
  showMarks,
}: CrfSaveOptions) {
  const { message, modal } = App.useApp();
  const userId = useSession((s) => s.user?.userId ?? null);

  const saved = useRef<Saved>({
    id: detail.crfDataRecord?.id ?? null,
    version: detail.crfDataRecord?.version ?? 0,
    state: detail.crfDataRecord?.state ?? null,
    base: loaded,
    baseMarks: loadedMarks,
  });
  useRecordSavedElsewhere(studyId, () => saved.current.id, onReload);
  const latest = useRef<FormValues>(loaded);
  const latestMarks = useRef<MissingMarks>(loadedMarks);
  const editSeq = useRef(0);
  const dirtyRef = useRef(false);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState<false | 'save' | 'submit'>(false);
  const [retrying, setRetrying] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]> | undefined>(undefined);
  const [showAllErrors, setShowAllErrors] = useState(false);
  const [errorList, setErrorList] = useState<SaveErrorList | null>(null);
  const focusFirstError = useRef(false);
  const [warnings, setWarnings] = useState<ItemIssue[]>([]);
  const [reasonFor, setReasonFor] = useState<{ submit: boolean; items: string[] } | null>(null);
  const [conflict, setConflict] = useState<{ stale: StaleRecord; mine: FormValues; edited: string[] } | null>(null);
  const draftOffer = useDraftOffer(userId, subjectRecordId, crfId, detail, loaded, loadedMarks);
  const [recordState, setRecordState] = useState<number | null>(detail.crfDataRecord?.state ?? null);
  const [savedAt, setSavedAt] = useState<string | null>(null);

  useUnsavedGuard(dirty, dirtyRef, bypassGuardRef);
  useEffect(() => {
    onDirtyChange?.(dirty);
  }, [dirty, onDirtyChange]);

  // ---- drafts -------------------------------------------------------------------------------
  const draftTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const currentDraftKey = () => draftKey(userId, subjectRecordId, crfId, saved.current.id);
  const flushDraft = useCallback(() => {
    if (draftTimer.current) {
      clearTimeout(draftTimer.current);
      draftTimer.current = null;
    }
    if (!dirtyRef.current) return;
    writeDraft(
      window.localStorage,
      draftKey(userId, subjectRecordId, crfId, saved.current.id),
      makeDraft(saved.current.base, latest.current, saved.current.version, undefined, {
        base: saved.current.baseMarks,
        current: latestMarks.current,
      }),
    );
  }, [userId, subjectRecordId, crfId]);

  useEffect(() => {
    window.addEventListener('pagehide', flushDraft);
    return () => {
      window.removeEventListener('pagehide', flushDraft);
      flushDraft();
    };
  }, [flushDraft]);

  const markDirty = (next: boolean) => {
    dirtyRef.current = next;
    setDirty(next);
  };

  /** The nurse's own edit: the values are unsaved, and written as a draft once typing pauses. */
  const noteEdit = useCallback(
    (values: FormValues) => {
      latest.current = values;
      editSeq.current += 1;
      if (!dirtyRef.current) {
        dirtyRef.current = true;
        setDirty(true);
      }
      if (draftTimer.current) clearTimeout(draftTimer.current);
      draftTimer.current = setTimeout(flushDraft, DRAFT_DELAY_MS);
    },
    [flushDraft],
  );

  /**
   * 缺失原因: the nurse marked an item, changed its code or cleared it. Unsaved like an edit; a marked item holds no
   * value (the engine's rule), so what was typed into it is not sent beside the mark.
   */
  const noteMarks = useCallback(
    (marks: MissingMarks) => {
      latestMarks.current = marks;
      const values = { ...latest.current };
      for (const name of Object.keys(marks)) delete values[name];
      noteEdit(values);
    },
    [noteEdit],
  );

  /** Values put into the form from outside it (recognition): unsaved, and written as a draft at once. */
  const putValues = (patch: Readonly<Record<string, unknown>>): FormValues => {
    const values = { ...latest.current, ...patch };
    latest.current = values;
    editSeq.current += 1;
    markDirty(true);
    flushDraft();
    return values;
  };

  // ---- save ---------------------------------------------------------------------------------
  const send = async (submit: boolean, reason: string | null) => {
    const values = latest.current;
    const marks = latestMarks.current;
    const seq = editSeq.current;
    const before = saved.current;
    const body = buildSaveBody({
      subjectRecordId,
      crfId,
      record: before.id ? { id: before.id, version: before.version } : null,
      values,
      submit,
      reason,
      requestId: newRequestId(),
      // The whole map, always: an item left out is a mark cleared.
      missing: marks,
    });
    // Opened from 随访记录 · 填写: the first save of the form is tied to its follow-up visit on the server.
    const followRecordCrfId = positiveIdOf(new URLSearchParams(window.location.search).get('followRecordCrfId'));
    if (followRecordCrfId !== null) body.followRecordCrfId = followRecordCrfId;
    setSaving(submit ? 'submit' : 'save');
    const slow = setTimeout(() => setRetrying(true), 4000);
    try {
      const res = await saveWithRetry(body);
      const result = res.data;
      const created = before.id === null;
      const oldKey = currentDraftKey();
      saved.current = {
        id: result.crfDataRecordId,
        version: result.version,
        state: result.state,
        base: values,
        baseMarks: marks,
      };
      setRecordState(result.state);
      setErrors(undefined);
      setShowAllErrors(false);
      setErrorList(null);
      setSavedAt(new Date().toISOString());
      if (editSeq.current === seq) {
        markDirty(false);
        writeDraft(window.localStorage, oldKey, null);
        writeDraft(window.localStorage, currentDraftKey(), null);
      } else {
        // The nurse kept typing while the answer travelled: those values stay unsaved, and safe.
        writeDraft(window.localStorage, oldKey, null);
        flushDraft();
      }
      setWarnings(result.state === FORM_STATE.submitted ? result.warnings : []);
      void message.success(res.msg || (submit ? t.submitted : t.saved));
      bypassGuardRef.current = true;
      onSaved(result, created);
      setTimeout(() => {
        bypassGuardRef.current = false;
      }, 0);
    } catch (error) {
      const failure = classifySaveError(error);
      flushDraft();
      switch (failure.kind) {
        case 'invalid': {
          // 表单数据有误 alone would leave the nurse searching a long form: the items are named, listed
          // above the form, and the first one is scrolled to and focused.
          const entries = buildErrorList(failure.issues, nodes, itemOrder);
          setErrors(issuesToErrors(failure.issues));
          setShowAllErrors(submit);
          setErrorList({ message: failure.message, entries });
          focusFirstError.current = entries.length > 0;
          void message.error(errorMessage(failure.message, entries));
          break;
        }
        case 'reason':
          setReasonFor({ submit, items: failure.changedItems.map((name) => itemTitle(nodes, name)) });
          break;
        case 'stale':
          setConflict({ stale: failure.stale, mine: values, edited: changedItemNames(before.base, values) });
          break;
        case 'network':
        case 'failed':
          void message.error(failure.message);
      }
    } finally {
      clearTimeout(slow);
      setRetrying(false);
      setSaving(false);
    }
  };

  // After a refusal has been rendered (the messages under the items are there): the first item in view.
  useEffect(() => {
    if (!focusFirstError.current || !errorList) return;
    focusFirstError.current = false;
    const first = errorList.entries[0];
    if (!first) return;
    const frame = requestAnimationFrame(() => locateItem(first.key, first.itemName));
    return () => cancelAnimationFrame(frame);
  }, [errorList]);

  const proceed = (submit: boolean) => {
    if (saving) return;
    const before = saved.current;
    const values = latest.current;
    const changed = changedNames(before.base, values, before.baseMarks, latestMarks.current);
    if (!submit && before.id !== null && changed.length === 0) {
      void message.info(t.unchanged);
      return;
    }
    if (
      needsReason(
        before.id !== null ? { state: before.state ?? 0 } : null,
        before.base,
        values,
        before.baseMarks,
        latestMarks.current,
      )
    ) {
      setReasonFor({ submit, items: changed.map((name) => itemTitle(nodes, name)) });
      return;
    }
    void send(submit, null);
  };

  const save = (submit: boolean) => {
    if (saving) return;
    // 提交 hands the form to monitoring: asked once, unless it is already submitted (a change then asks a reason).
    if (submit && saved.current.state !== FORM_STATE.submitted) {
      const trigger = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      modal.confirm({
        title: t.submitConfirmTitle,
        content: t.submitConfirmContent,
        okText: t.submit,
        cancelText: COMMON_TEXT.cancel,
        // The closing dialog must not take the focus back from a refusal's first item: it is given
        // back by hand only when the nurse cancels.
        focusable: { focusTriggerAfterClose: false },
        onOk: () => proceed(true),
        onCancel: () => trigger?.focus({ preventScroll: true }),
      });
      return;
    }
    proceed(submit);
  };

  /** The reason dialog's 确定: the save it interrupted goes on with the reason. */
  const saveWithReason = (reason: string) => {
    const submit = reasonFor?.submit ?? false;
    setReasonFor(null);
    void send(submit, reason);
  };

  /** The conflict dialog's 刷新: the server's record is loaded again. */
  const reloadAfterConflict = () => {
    flushDraft();
    // The draft is in storage; leaving the record now loses nothing.
    markDirty(false);
    setConflict(null);
    onReload();
  };

  // ---- drafts offered back --------------------------------------------------------------------
  const restoreDraft = () => {
    const review = draftOffer.take();
    if (!review) return;
    const { values } = review;
    latest.current = values;
    showValues(values);
    if (review.missing) {
      latestMarks.current = review.missing;
      showMarks(review.missing);
    }
    markDirty(true);
    flushDraft();
  };

  return {
    dirty,
    saving,
    retrying,
    recordState,
    savedAt,
    errors,
    showAllErrors,
    errorList,
    closeErrorList: () => setErrorList(null),
    warnings,
    closeWarnings: () => setWarnings([]),
    reasonFor,
    cancelReason: () => setReasonFor(null),
    saveWithReason,
    conflict,
    closeConflict: () => setConflict(null),
    reloadAfterConflict,
    draftOffer: draftOffer.offer,
    restoreDraft,
    discardDraft: draftOffer.discard,
    noteEdit,
    noteMarks,
    putValues,
    save,
  };
}
