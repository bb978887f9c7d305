import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Alert } from 'antd';
import { genderFromPatient, type CrfDefinition, type FormState, type MissingMarks } from '@ecrf/core';
import type { CrfRecordDetail, CrfSaveResult } from '../../../api/crf.api';
import { useMissingCodes } from '../../../api/missing-codes.api';
import { CrfForm, type ItemMark, type UploadHandler } from '../../../crf';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { setDisplayTimeZone } from '../../../utils/format-date';
import { formItems, nodesByName } from '../crf-values';
import type { FormValues } from '../save-flow';
import { useCrfSave } from '../use-crf-save';
import { afterEdit } from '../recognition/identify-templates';
import { uploadToStorage } from '../../../api/object-upload.api';
import { ConflictDialog, DraftDialog, ReasonDialog } from './save-dialogs';
import { SaveActions } from './save-actions';
import { SaveErrorListAlert, SaveWarningsAlert } from './save-alerts';
import { useSiteRanges } from './use-site-ranges';

const t = CRF_PAGE_TEXT;

export interface CrfEditorProps {
  /** A lock holds the form (the lock bar above says who, when and why): no "no right" notice. */
  locked?: boolean;
  /**
   * Under a lock, the buttons the member would have without it (保存, 提交), shown disabled with the lock's words
   * so the page says why nothing can be changed.
   */
  lockedActions?: { save: boolean; submit: boolean; text: string } | undefined;
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

/**
 * One record of one form: CrfForm with the save and submit flow (forms §4, use-crf-save.ts). Typing never
 * renders this component: the latest values live in a ref, a draft of them in local storage, and only the
 * unsaved flag is state.
 */
export function CrfEditor({
  locked,
  lockedActions,
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
  // The definition of this record never changes while it is open; holding it keeps the form
  // mounted when the page refetches the detail under another key (a new record getting its id).
  const [definition] = useState<CrfDefinition>(() => detail.crf.definition);
  const [loaded] = useState<FormValues>(() => detail.crfDataRecord?.values ?? detail.initialValues ?? {});
  const [formValues, setFormValues] = useState<FormValues>(loaded);
  // 缺失原因: the marks are state (a mark changes the form's look), saved with the values.
  const [loadedMarks] = useState<MissingMarks>(() => detail.crfDataRecord?.missing ?? {});
  const [missing, setMissing] = useState<MissingMarks>(loadedMarks);
  const missingCodes = useMissingCodes(studyId);
  // The marks as last changed, for the next change (the state may not have rendered yet).
  const missingRef = useRef(loadedMarks);
  const showMarks = useCallback((marks: MissingMarks) => {
    missingRef.current = marks;
    setMissing(marks);
  }, []);
  const nodes = useMemo(() => nodesByName(definition), [definition]);
  const itemOrder = useMemo(() => formItems(definition).map((item) => item.name), [definition]);
  const [recognised, setRecognised] = useState<ReadonlySet<string>>(() => new Set());

  const onRecordSaved = useCallback(
    (result: CrfSaveResult, created: boolean) => {
      // Saving what recognition filled is the nurse's confirmation of it.
      setRecognised(new Set());
      onSaved(result, created);
    },
    [onSaved],
  );
  const saveFlow = useCrfSave({
    subjectRecordId,
    crfId,
    studyId,
    detail,
    loaded,
    loadedMarks,
    nodes,
    itemOrder,
    onSaved: onRecordSaved,
    onReload,
    onDirtyChange,
    bypassGuardRef,
    showValues: setFormValues,
    showMarks,
  });
  const { noteEdit, noteMarks } = saveFlow;

  const editable = detail.permissions.save || detail.permissions.submit;
  const siteRanges = useSiteRanges({
    studyId,
    subjectRecordId,
    crfId,
    crfDataRecordId: detail.crfDataRecord?.id ?? null,
    stored: detail.crfDataRecord?.labRanges,
    ready: true,
  });
  const context = useMemo(
    () => ({
      gender: genderFromPatient(detail.subject.gender),
      editable,
      forms: detail.formValues,
      timeZone: detail.timeZone,
      spineBandSet: detail.spineBandSet,
      missing,
      // 参考范围: the site ranges the last save judged by, or before one the ones it would (use-site-ranges.ts).
      referenceRanges: siteRanges,
    }),
    [detail.subject.gender, editable, detail.formValues, detail.timeZone, detail.spineBandSet, missing, siteRanges],
  );
  useEffect(() => setDisplayTimeZone(detail.timeZone), [detail.timeZone]);

  const onChange = useCallback(
    (values: Record<string, unknown>, changedName: string) => {
      setRecognised((marked) => afterEdit(marked, changedName));
      noteEdit(values);
    },
    [noteEdit],
  );

  const onMarkMissing = useCallback(
    (name: string, code: string | null) => {
      const next: Record<string, string> = { ...missingRef.current };
      if (code === null) delete next[name];
      else next[name] = code;
      missingRef.current = next;
      setMissing(next);
      noteMarks(next);
      // A value recognition put there goes with the mark.
      setRecognised((marked) => afterEdit(marked, name));
    },
    [noteMarks],
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

  // ---- recognition ----------------------------------------------------------------------------
  useEffect(() => {
    if (!fillRef) return;
    fillRef.current = (patch) => {
      setFormValues(saveFlow.putValues(patch));
      setRecognised((marked) => new Set([...marked, ...Object.keys(patch)]));
    };
    return () => {
      fillRef.current = null;
    };
  });
  const confirmRecognised = useCallback((name: string) => setRecognised((marked) => afterEdit(marked, name)), []);

  const { errorList, warnings, reasonFor, conflict, draftOffer } = saveFlow;
  return (
    <div className="crf-editor">
      {!editable && !locked && <Alert type="info" showIcon title={t.readOnly} className="crf-editor-alert" />}
      {errorList && errorList.entries.length > 0 && (
        <SaveErrorListAlert errorList={errorList} onClose={saveFlow.closeErrorList} />
      )}
      {warnings.length > 0 && <SaveWarningsAlert warnings={warnings} nodes={nodes} onClose={saveFlow.closeWarnings} />}
      <CrfForm
        definition={definition}
        values={formValues}
        onChange={onChange}
        onEvaluate={onEvaluate}
        readOnly={!editable}
        context={context}
        errors={saveFlow.errors}
        showAllErrors={saveFlow.showAllErrors}
        onUpload={editable ? onUpload : undefined}
        onItemOpen={onItemOpen}
        itemMarks={itemMarks}
        recognised={recognised}
        onConfirmRecognised={confirmRecognised}
        missingCodes={missingCodes}
        onMarkMissing={editable ? onMarkMissing : undefined}
        // A 500-item form is interactive before its last sections are rendered (docs/performance.md).
        progressive
        className="crf-editor-form"
      />
      {editable && (
        <SaveActions
          canSave={detail.permissions.save}
          canSubmit={detail.permissions.submit}
          dirty={saveFlow.dirty}
          saving={saveFlow.saving}
          retrying={saveFlow.retrying}
          savedAt={saveFlow.savedAt}
          recordState={saveFlow.recordState}
          onSave={saveFlow.save}
        />
      )}
      {!editable && lockedActions && (lockedActions.save || lockedActions.submit) && (
        <SaveActions
          canSave={lockedActions.save}
          canSubmit={lockedActions.submit}
          lockedText={lockedActions.text}
          dirty={false}
          saving={false}
          retrying={false}
          savedAt={null}
          recordState={saveFlow.recordState}
          onSave={() => undefined}
        />
      )}
      <ReasonDialog
        open={reasonFor !== null}
        items={reasonFor?.items ?? []}
        onCancel={saveFlow.cancelReason}
        onOk={saveFlow.saveWithReason}
      />
      <ConflictDialog
        stale={conflict?.stale ?? null}
        mine={conflict?.mine ?? {}}
        edited={conflict?.edited}
        nodes={nodes}
        onCancel={saveFlow.closeConflict}
        onRefresh={saveFlow.reloadAfterConflict}
      />
      <DraftDialog
        review={draftOffer?.review ?? null}
        savedAt={draftOffer?.draft.savedAt ?? ''}
        nodes={nodes}
        onRestore={saveFlow.restoreDraft}
        onDiscard={saveFlow.discardDraft}
      />
    </div>
  );
}
