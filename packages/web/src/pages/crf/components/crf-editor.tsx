import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Alert, App, Button, Space, Tag } from 'antd';
import { SaveOutlined, SendOutlined } from '@ant-design/icons';
import { genderFromPatient, type CrfDefinition, type FormState } from '@ecrf/core';
import {
  crfRecordApi,
  FORM_STATE,
  type CrfRecordDetail,
  type CrfSaveBody,
  type CrfSaveResult,
  type ItemIssue,
  type StaleRecord,
} from '../../../api/crf.api';
import type { ApiResult } from '../../../api/request';
import { CrfForm, type ItemMark, type UploadHandler } from '../../../crf';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { useSession } from '../../../stores/session.store';
import { setDisplayTimeZone, formatDate } from '../../../utils/format-date';
import { formItems, itemTitle, nodesByName } from '../crf-values';
import { buildErrorList, errorMessage, type ErrorListEntry } from '../error-list';
import { locateItem } from '../locate-item';
import {
  buildSaveBody,
  changedItemNames,
  classifySaveError,
  draftKey,
  isRetryable,
  issuesToErrors,
  makeDraft,
  needsReason,
  newRequestId,
  readDraft,
  reviewDraft,
  writeDraft,
  type CrfDraft,
  type DraftReview,
  type FormValues,
} from '../save-flow';
import { useUnsavedGuard } from '../use-unsaved-guard';
import { afterEdit } from '../recognition/identify-templates';
import { uploadToStorage } from '../../../api/object-upload.api';
import { useRecordSavedElsewhere } from '../../../realtime/use-record-saved-elsewhere';
import { ConflictDialog, DraftDialog, ReasonDialog } from './save-dialogs';

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
}

export interface CrfEditorProps {
  /** A lock holds the form (the lock bar above says who, when and why): no "no right" notice. */
  locked?: boolean;
  subjectRecordId: number;
  crfId: number;
  studyId: number;
  detail: CrfRecordDetail;
  /** After a save: the page refreshes the menu and records, and names a new record in the address. */
  onSaved: (result: CrfSaveResult, created: boolean) => void;
  /** Reload the record from the server (after a conflict). */
  onReload: () => void;
  /** The items the engine shows now (skip logic), so the markers list only those. */
  onVisibleChange?: (visible: ReadonlySet<string>) => void;
  /** The unsaved flag (forms §4 changeSaveStatus): queries wait until the values are saved. */
  onDirtyChange?: (dirty: boolean) => void;
  /** Lets the page's own address change through the unsaved-changes guard. */
  bypassGuardRef: React.RefObject<boolean>;
  /** Given, each item gets its own control for the page's item panel (no room for the panel beside the form). */
  onItemOpen?: ((itemName: string) => void) | undefined;
  /** What those controls show: an open query, a verified value. */
  itemMarks?: Readonly<Record<string, ItemMark>>;
  /**
   * Set by the editor: fills recognised values into the open form, unsaved, each tagged 识别 until the nurse
   * confirms or changes it (RECOG-01; the values are saved only by her own 保存 or 提交).
   */
  fillRef?: React.RefObject<((values: Readonly<Record<string, unknown>>) => void) | null>;
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
 * One record of one form: CrfForm with the save and submit flow (forms §4). Typing never renders
 * this component: the latest values live in a ref, a draft of them in local storage, and only the
 * unsaved flag is state.
 */
export function CrfEditor({
  locked,
  subjectRecordId,
  crfId,
  studyId,
  detail,
  onSaved,
  onReload,
  onDirtyChange,
  onVisibleChange,
  bypassGuardRef,
  onItemOpen,
  itemMarks,
  fillRef,
}: CrfEditorProps) {
  const { message, modal } = App.useApp();
  const userId = useSession((s) => s.user?.userId ?? null);
  // The definition of this record never changes while it is open; holding it keeps the form
  // mounted when the page refetches the detail under another key (a new record getting its id).
  const [definition] = useState<CrfDefinition>(() => detail.crf.definition);
  const [loaded] = useState<FormValues>(() => detail.crfDataRecord?.values ?? detail.initialValues ?? {});
  const [formValues, setFormValues] = useState<FormValues>(loaded);
  const nodes = useMemo(() => nodesByName(definition), [definition]);
  const itemOrder = useMemo(() => formItems(definition).map((item) => item.name), [definition]);

  const saved = useRef<Saved>({
    id: detail.crfDataRecord?.id ?? null,
    version: detail.crfDataRecord?.version ?? 0,
    state: detail.crfDataRecord?.state ?? null,
    base: loaded,
  });
  useRecordSavedElsewhere(studyId, () => saved.current.id, onReload);
  const latest = useRef<FormValues>(loaded);
  const editSeq = useRef(0);
  const dirtyRef = useRef(false);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState<false | 'save' | 'submit'>(false);
  const [retrying, setRetrying] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]> | undefined>(undefined);
  const [showAllErrors, setShowAllErrors] = useState(false);
  /** The items a refused save named, listed above the form; the first one is scrolled to once rendered. */
  const [errorList, setErrorList] = useState<{ message: string; entries: ErrorListEntry[] } | null>(null);
  const focusFirstError = useRef(false);
  const [warnings, setWarnings] = useState<ItemIssue[]>([]);
  const [reasonFor, setReasonFor] = useState<{ submit: boolean; items: string[] } | null>(null);
  const [conflict, setConflict] = useState<{ stale: StaleRecord; mine: FormValues; edited: string[] } | null>(null);
  const [draftOffer, setDraftOffer] = useState<{ review: DraftReview; draft: CrfDraft; keys: string[] } | null>(() => {
    const recordId = detail.crfDataRecord?.id ?? null;
    const keys = [draftKey(userId, subjectRecordId, crfId, recordId)];
    // A single form someone else created while this user typed into a new one (a conflict, then
    // 刷新): the draft was kept under "new" and belongs to the record that now exists.
    if (recordId !== null && detail.repeat === 1) keys.push(draftKey(userId, subjectRecordId, crfId, null));
    for (const key of keys) {
      const draft = readDraft(window.localStorage, key);
      if (!draft) continue;
      const review = reviewDraft(draft, loaded);
      if (review.items.length > 0) return { review, draft, keys };
    }
    return null;
  });
  const [recordState, setRecordState] = useState<number | null>(detail.crfDataRecord?.state ?? null);
  const [savedAt, setSavedAt] = useState<string | null>(null);
  const [recognised, setRecognised] = useState<ReadonlySet<string>>(() => new Set());

  const editable = detail.permissions.save || detail.permissions.submit;
  const context = useMemo(
    () => ({
      gender: genderFromPatient(detail.subject.gender),
      editable,
      forms: detail.formValues,
      timeZone: detail.timeZone,
    }),
    [detail.subject.gender, editable, detail.formValues, detail.timeZone],
  );
  useEffect(() => setDisplayTimeZone(detail.timeZone), [detail.timeZone]);

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
      makeDraft(saved.current.base, latest.current, saved.current.version),
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

  const onChange = useCallback(
    (values: Record<string, unknown>, changedName: string) => {
      setRecognised((marked) => afterEdit(marked, changedName));
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

  // UPL-10, UPL-12, UPL-13: straight to the object store when the installation has one (the value is
  // domain + key), else to this server (the value is its key, CONV-09). A failure rejects with the
  // server's message, which the upload widget shows (UPL-16).
  const onUpload: UploadHandler = useCallback(
    (file, kind, onProgress, thumbnailOf) => uploadToStorage(studyId, file, kind, onProgress, thumbnailOf),
    [studyId],
  );

  // Only a change in which items show reaches the page: typing alone renders nothing outside the form.
  const visibleKey = useRef('');
  const onEvaluate = useCallback(
    (state: FormState) => {
      if (!onVisibleChange) return;
      const names = Object.entries(state.items)
        .filter(([key, item]) => item.visible && nodes.has(key))
        .map(([key]) => key);
      const key = names.join(',');
      if (key === visibleKey.current) return;
      visibleKey.current = key;
      onVisibleChange(new Set(names));
    },
    [nodes, onVisibleChange],
  );

  // ---- save ---------------------------------------------------------------------------------
  const send = async (submit: boolean, reason: string | null) => {
    const values = latest.current;
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
    });
    // Opened from 随访记录 · 填写: the first save of the form is tied to its follow-up visit on the server.
    const followRecordCrfId = Number(new URLSearchParams(window.location.search).get('followRecordCrfId'));
    if (Number.isInteger(followRecordCrfId) && followRecordCrfId > 0) body.followRecordCrfId = followRecordCrfId;
    setSaving(submit ? 'submit' : 'save');
    const slow = setTimeout(() => setRetrying(true), 4000);
    try {
      const res = await saveWithRetry(body);
      const result = res.data;
      const created = before.id === null;
      const oldKey = currentDraftKey();
      saved.current = { id: result.crfDataRecordId, version: result.version, state: result.state, base: values };
      setRecordState(result.state);
      setErrors(undefined);
      setShowAllErrors(false);
      setErrorList(null);
      setSavedAt(new Date().toISOString());
      // Saving what recognition filled is the nurse's confirmation of it.
      setRecognised(new Set());
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
    if (!submit && before.id !== null && changedItemNames(before.base, values).length === 0) {
      void message.info(t.unchanged);
      return;
    }
    if (needsReason(before.id !== null ? { state: before.state ?? 0 } : null, before.base, values)) {
      setReasonFor({ submit, items: changedItemNames(before.base, values).map((name) => itemTitle(nodes, name)) });
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

  // ---- recognition ----------------------------------------------------------------------------
  useEffect(() => {
    if (!fillRef) return;
    fillRef.current = (patch) => {
      const values = { ...latest.current, ...patch };
      latest.current = values;
      editSeq.current += 1;
      setFormValues(values);
      setRecognised((marked) => new Set([...marked, ...Object.keys(patch)]));
      markDirty(true);
      flushDraft();
    };
    return () => {
      fillRef.current = null;
    };
  });
  const confirmRecognised = useCallback((name: string) => setRecognised((marked) => afterEdit(marked, name)), []);

  // ---- drafts offered back --------------------------------------------------------------------
  const restoreDraft = () => {
    if (!draftOffer) return;
    const values = draftOffer.review.values;
    // The restored edits now live under this record's key only.
    for (const key of draftOffer.keys) writeDraft(window.localStorage, key, null);
    latest.current = values;
    setFormValues(values);
    markDirty(true);
    setDraftOffer(null);
    flushDraft();
  };
  const discardDraft = () => {
    for (const key of draftOffer?.keys ?? []) writeDraft(window.localStorage, key, null);
    setDraftOffer(null);
  };

  return (
    <div className="crf-editor">
      {!editable && !locked && <Alert type="info" showIcon title={t.readOnly} className="crf-editor-alert" />}
      {errorList && errorList.entries.length > 0 && (
        <Alert
          type="error"
          showIcon
          closable
          className="crf-editor-alert crf-error-list"
          title={errorList.message}
          description={
            <>
              <div className="crf-error-list-hint">{t.errorListTitle(errorList.entries.length)}</div>
              <ul className="crf-warning-list">
                {errorList.entries.map((entry) => (
                  <li key={entry.key}>
                    <button
                      type="button"
                      className="crf-error-link"
                      onClick={() => locateItem(entry.key, entry.itemName)}
                    >
                      {entry.title}
                    </button>
                    {entry.messages.length > 0 && <span>：{entry.messages.join('；')}</span>}
                  </li>
                ))}
              </ul>
            </>
          }
          onClose={() => setErrorList(null)}
        />
      )}
      {warnings.length > 0 && (
        <Alert
          type="warning"
          showIcon
          closable
          className="crf-editor-alert"
          title={t.warningsTitle}
          description={
            <ul className="crf-warning-list">
              {warnings.map((w) => (
                <li key={`${w.groupName ?? ''}${w.groupIndex ?? ''}${w.itemName}${w.message}`}>
                  <b>{itemTitle(nodes, w.itemName)}</b>：{w.message}
                </li>
              ))}
            </ul>
          }
          onClose={() => setWarnings([])}
        />
      )}
      <CrfForm
        definition={definition}
        values={formValues}
        onChange={onChange}
        onEvaluate={onEvaluate}
        readOnly={!editable}
        context={context}
        errors={errors}
        showAllErrors={showAllErrors}
        onUpload={editable ? onUpload : undefined}
        onItemOpen={onItemOpen}
        itemMarks={itemMarks}
        recognised={recognised}
        onConfirmRecognised={confirmRecognised}
        // A 500-item form is interactive before its last sections are rendered (docs/performance.md).
        progressive
        className="crf-editor-form"
      />
      {editable && (
        <div className="crf-editor-actions">
          <Space size="middle">
            {dirty ? (
              <Tag color="orange">{t.unsavedTag}</Tag>
            ) : savedAt ? (
              <span className="crf-saved-at">{t.savedAt(formatDate(savedAt, 'HH:mm:ss'))}</span>
            ) : null}
            {retrying && <span className="crf-saved-at">{t.retrying}</span>}
            {detail.permissions.save && (
              <Button
                icon={<SaveOutlined />}
                loading={saving === 'save'}
                disabled={saving === 'submit'}
                onClick={() => save(false)}
              >
                {t.save}
              </Button>
            )}
            {detail.permissions.submit && (
              <Button
                type="primary"
                icon={<SendOutlined />}
                loading={saving === 'submit'}
                disabled={saving === 'save'}
                onClick={() => save(true)}
              >
                {t.submit}
              </Button>
            )}
          </Space>
          {recordState === FORM_STATE.submitted && <span className="crf-editor-submitted">{t.state.submitted}</span>}
        </div>
      )}
      <ReasonDialog
        open={reasonFor !== null}
        items={reasonFor?.items ?? []}
        onCancel={() => setReasonFor(null)}
        onOk={(reason) => {
          const submit = reasonFor?.submit ?? false;
          setReasonFor(null);
          void send(submit, reason);
        }}
      />
      <ConflictDialog
        stale={conflict?.stale ?? null}
        mine={conflict?.mine ?? {}}
        edited={conflict?.edited}
        nodes={nodes}
        onCancel={() => setConflict(null)}
        onRefresh={() => {
          flushDraft();
          // The draft is in storage; leaving the record now loses nothing.
          markDirty(false);
          setConflict(null);
          onReload();
        }}
      />
      <DraftDialog
        review={draftOffer?.review ?? null}
        savedAt={draftOffer?.draft.savedAt ?? ''}
        nodes={nodes}
        onRestore={restoreDraft}
        onDiscard={discardDraft}
      />
    </div>
  );
}
