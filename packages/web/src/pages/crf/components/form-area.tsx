import { useCallback, useMemo, useRef, useState } from 'react';
import { App, Button, Result, Spin } from 'antd';
import { UnorderedListOutlined } from '@ant-design/icons';
import type { StudyButton } from '@ecrf/core';
import { crfRecordApi, type CrfMenuNode, type CrfPatient, type CrfSaveResult } from '../../../api/crf.api';
import type { ItemMark } from '../../../crf';
import { useCrfScreen } from '../../../layouts/crf-layout';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { isRepeatable } from '../crf-menu';
import { formItems, nodesByName, type FormItem } from '../crf-values';
import { RecognitionDialog } from '../recognition/recognition-dialog';
import { RecognitionSources } from '../recognition/recognition-sources';
import { useFormRecognition } from '../recognition/use-form-recognition';
import { useFormDoubts } from '../use-form-doubts';
import { useFormRecord, type RecordParam } from '../use-form-record';
import { useRecordComments } from '../use-record-comments';
import { usePrintCrf } from '../use-print-crf';
import { useSdv } from '../use-sdv';
import { CrfEditor } from './crf-editor';
import { CommentsDrawer, type CommentTarget } from './comments-drawer';
import { CRF_BUTTONS, CrfToolbar } from './crf-toolbar';
import { LockBar, useRecordLock } from './lock-bar';
import { DoubtDialog } from './doubt-dialog';
import { DoubtPicker } from './doubt-picker';
import { DoubleEntryPanel, useMyDoubleEntry } from './double-entry-panel';
import { HistoryDrawer, type HistoryTarget } from './history-drawer';
import { ItemDrawers, useItemDrawers } from './item-drawers';
import { ItemPanel, type ItemPanelProps } from './item-panel';
import { OverviewDialog, type OverviewScope } from './overview-dialog';
import { RecordImaging } from './record-imaging';
import { RecordTable } from './record-table';
import { SignDialog } from './sign-dialog';
import { useSiteRanges } from './use-site-ranges';

const t = CRF_PAGE_TEXT;

export type { RecordParam };

export interface FormAreaProps {
  subjectRecordId: number;
  form: CrfMenuNode;
  patient: CrfPatient | undefined;
  recordParam: RecordParam;
  /** Points the address at a record (replace: without a new history entry). */
  setRecord: (record: RecordParam, replace?: boolean) => void;
  can: (code: StudyButton) => boolean;
  doubtOn: boolean;
}

/**
 * One form of the casebook: the repeatable form's records, the editor, the item markers and every
 * dialog of the form's top-bar buttons.
 */
export function FormArea({ subjectRecordId, form, patient, recordParam, setRecord, can, doubtOn }: FormAreaProps) {
  const { message } = App.useApp();
  const screen = useCrfScreen();
  const crfId = form.crfId!;
  const repeatable = isRepeatable(form);
  const record = useFormRecord({ subjectRecordId, crfId, repeatable, recordParam, setRecord });
  const { dataList, detailQuery, waitingForChoice, detail, refreshAll } = record;

  const definition = detail?.crf.definition;
  const allItems = useMemo(() => (definition ? formItems(definition) : []), [definition]);
  const [visible, setVisible] = useState<ReadonlySet<string> | null>(null);
  const items = useMemo(
    () => (visible ? allItems.filter((item) => visible.has(item.name)) : allItems),
    [allItems, visible],
  );
  const nodes = useMemo(() => (definition ? nodesByName(definition) : new Map()), [definition]);
  const recordId = detail?.crfDataRecord?.id ?? null;
  const savedValues = detail?.crfDataRecord?.values ?? {};

  const bypassGuardRef = useRef(false);
  const [history, setHistory] = useState<HistoryTarget | null>(null);
  const [commentTarget, setCommentTarget] = useState<CommentTarget | null>(null);
  const [viewerOpen, setViewerOpen] = useState(false);
  const [dialog, setDialog] = useState<'overview' | 'preview' | 'sign' | 'identify' | null>(null);
  const [unsaved, setUnsaved] = useState(false);
  const doubts = useFormDoubts({ detail, recordId, savedValues, unsaved, nodes });
  const sdv = useSdv(recordId, nodes, refreshAll);
  const drawers = useItemDrawers(items);
  const { printing, print } = usePrintCrf({
    subjectRecordId,
    crfId,
    crfDataRecordId: recordId,
    fileName: `${patient?.subjectName ?? ''}-${form.title}.docx`,
    openPreview: () => setDialog('preview'),
  });
  const recognition = useFormRecognition({
    subjectRecordId,
    crfId,
    studyId: patient?.studyId ?? 0,
    recordId,
    definition,
    crfOption: detail?.crf.option,
    crfTitle: detail?.crf.title,
  });
  const { adoptSaved } = record;
  const { linkPending } = recognition;

  const onSaved = useCallback(
    (result: CrfSaveResult, created: boolean) => {
      adoptSaved(result, created);
      if (created) linkPending(result.crfDataRecordId);
      void refreshAll();
    },
    [adoptSaved, linkPending, refreshAll],
  );

  const onHistory = useCallback(
    (item: FormItem | null) => {
      if (!recordId) return;
      setHistory({ crfDataRecordId: recordId, itemName: item?.name, title: item?.title ?? form.title });
    },
    [recordId, form.title],
  );

  const studyId = patient?.studyId ?? detail?.subject.studyId ?? 0;
  const comments = useRecordComments(studyId, recordId);
  const onComments = useCallback(
    (item: FormItem) => {
      if (recordId) setCommentTarget({ crfDataRecordId: recordId, itemName: item.name, title: item.title });
    },
    [recordId],
  );
  const lockState = useRecordLock(studyId, subjectRecordId, recordId).data;
  // 参考范围: the ranges the open form is judged by, which recognition judges its rows by too (the editor's query).
  const siteRanges = useSiteRanges({
    studyId,
    subjectRecordId,
    crfId,
    crfDataRecordId: recordId,
    stored: detail?.crfDataRecord?.labRanges,
    ready: Boolean(detail),
  });
  // 双份录入 (issue 37): a form set to double entry shows the caller's own entry in place of the record.
  const doubleEntryInstance = useMemo(
    () => ({ studyId, subjectRecordId, crfId, crfDataRecordId: recordId }),
    [studyId, subjectRecordId, crfId, recordId],
  );
  const doubleEntry = useMyDoubleEntry(doubleEntryInstance, Boolean(detail)).data?.doubleEntry === true;
  const locked = Boolean(lockState?.locked);
  // VIS-09: the form is editable with the study buttons business.crf.save or .submit, and the
  // server further needs the form's own save or submit right; the page offers what both allow. A lock
  // (docs/multi-centre.md) leaves it read-only, as the server would refuse any change.
  const permissions = useMemo(
    () =>
      detail && {
        ...detail.permissions,
        save: detail.permissions.save && can(CRF_BUTTONS.save) && !locked,
        submit: detail.permissions.submit && can(CRF_BUTTONS.submit) && !locked,
        sdv: detail.permissions.sdv && can(CRF_BUTTONS.sdv) && !locked,
      },
    [detail, can, locked],
  );
  const editorDetail = useMemo(
    () => (detail && permissions ? { ...detail, permissions } : null),
    [detail, permissions],
  );
  const canEdit = Boolean(permissions && (permissions.save || permissions.submit));
  const lockedText = locked ? (lockState?.message ?? undefined) : undefined;
  // What a lock takes away is still shown, disabled with the lock's words (docs/multi-centre.md).
  const lockedActions = useMemo(
    () =>
      detail && lockedText
        ? {
            save: detail.permissions.save && can(CRF_BUTTONS.save),
            submit: detail.permissions.submit && can(CRF_BUTTONS.submit),
            sdv: detail.permissions.sdv && can(CRF_BUTTONS.sdv),
            text: lockedText,
          }
        : undefined,
    [detail, can, lockedText],
  );

  const sdvMarks = detail?.crfDataRecord?.sdv;
  const openDoubts = detail?.crfDoubts;
  const itemMarks = useMemo(() => {
    const marks: Record<string, ItemMark> = {};
    for (const name of Object.keys(sdvMarks ?? {})) marks[name] = 'verified';
    for (const d of openDoubts ?? []) marks[d.groupName ?? d.itemName] = 'doubt';
    return marks;
  }, [sdvMarks, openDoubts]);
  const panel: ItemPanelProps | null =
    detail && permissions
      ? {
          items,
          recordId,
          sdv: detail.crfDataRecord?.sdv ?? {},
          doubts: detail.crfDoubts,
          sdvMode: sdv.sdvMode,
          canSdv: permissions.sdv,
          sdvBusy: sdv.sdvBusy,
          onHistory,
          onDoubts: doubts.onDoubts,
          onSdv: (names, verified) => void sdv.onSdv(names, verified),
          onLocate: drawers.onLocate,
          commentCounts: comments.countByItem,
          onComments,
        }
      : null;

  let body;
  // CRF-19: a failed detail load, or a failed record list the page waits on to pick a record, ends the spinner.
  const listFailed = waitingForChoice && dataList.isError;
  if ((detailQuery.isError && !detail) || listFailed) {
    body = (
      <Result
        status="warning"
        title={t.loadFailed}
        extra={
          <Button type="primary" onClick={() => void (listFailed ? dataList.refetch() : detailQuery.refetch())}>
            {t.retry}
          </Button>
        }
      />
    );
  } else if (!detail || !editorDetail || !permissions || !panel) {
    body = (
      <div className="crf-loading">
        <Spin />
      </div>
    );
  } else {
    body = (
      <div className="crf-work">
        <div className="crf-form-card">
          <h2 className="crf-form-title">
            {detail.crf.title}
            {repeatable && <UnorderedListOutlined className="crf-form-title-repeat" aria-label={t.repeatable} />}
            <span className="crf-form-version">v{detail.crf.version}</span>
          </h2>
          <LockBar
            studyId={studyId}
            subjectRecordId={subjectRecordId}
            crfDataRecordId={recordId}
            canLock={can(CRF_BUTTONS.lock)}
            state={lockState}
          />
          <RecognitionSources
            studyId={studyId}
            subjectRecordId={subjectRecordId}
            crfId={crfId}
            crfDataRecordId={recordId}
          />
          {doubleEntry ? (
            <DoubleEntryPanel
              instance={doubleEntryInstance}
              definition={detail.crf.definition}
              locked={locked}
              onReconciled={() => void refreshAll()}
            />
          ) : (
            <CrfEditor
              key={record.epoch}
              locked={locked}
              lockedActions={lockedActions}
              subjectRecordId={subjectRecordId}
              crfId={crfId}
              studyId={studyId}
              detail={editorDetail}
              onSaved={onSaved}
              onDirtyChange={setUnsaved}
              onVisibleChange={setVisible}
              onReload={record.reload}
              bypassGuardRef={bypassGuardRef}
              onItemOpen={screen.panelOnDemand ? drawers.openSheet : undefined}
              itemMarks={itemMarks}
              fillRef={recognition.fillRef}
            />
          )}
        </div>
        {!screen.panelOnDemand && (
          <aside className="crf-side-card">
            <ItemPanel {...panel} />
          </aside>
        )}
      </div>
    );
  }

  return (
    <div className="crf-form-area">
      <CrfToolbar
        lockedText={lockedText}
        formOpen={Boolean(detail)}
        showIdentify={recognition.templates.length > 0}
        showDoubt={doubtOn && can(CRF_BUTTONS.doubt)}
        showDicom={can(CRF_BUTTONS.dicom)}
        showSdv={Boolean(permissions?.sdv || lockedActions?.sdv)}
        sdvMode={sdv.sdvMode}
        signatureInvalid={detail?.signature ? !detail.signature.valid : false}
        printing={printing}
        onPrint={() => void print()}
        onDicom={() => setViewerOpen(true)}
        onIdentify={() => (canEdit ? setDialog('identify') : void message.warning(t.readOnly))}
        onDoubt={doubts.openDoubtPicker}
        onOverview={() => setDialog('overview')}
        onSign={() => setDialog('sign')}
        onSdv={() => sdv.setSdvMode(!sdv.sdvMode)}
        compact={screen.compact}
        onItems={screen.panelOnDemand && detail ? drawers.openItems : undefined}
      />
      {repeatable && (
        <RecordTable
          rows={dataList.data ?? []}
          loading={dataList.isFetching}
          currentId={typeof recordParam === 'number' ? recordParam : null}
          creating={recordParam === 'new'}
          canAdd={canEdit}
          phone={screen.phone}
          canRemove={Boolean(permissions?.save)}
          onAdd={() => setRecord('new')}
          onOpen={(id) => setRecord(id)}
          onRemove={async (id, reason) => {
            await crfRecordApi.removeData(id, reason);
            if (id === recordParam) setRecord(null, true);
            await refreshAll();
          }}
        />
      )}
      {body}
      <HistoryDrawer target={history} nodes={nodes} phone={screen.phone} onClose={() => setHistory(null)} />
      <CommentsDrawer
        studyId={studyId}
        target={commentTarget}
        // The server lets whoever reads the form comment on it; a lock leaves the box disabled with its words.
        canComment={detail?.permissions.view !== false}
        lockedText={lockedText}
        phone={screen.phone}
        onClose={() => setCommentTarget(null)}
      />
      {screen.panelOnDemand && panel && <ItemDrawers drawers={drawers} phone={screen.phone} panel={panel} />}
      <DoubtPicker
        open={doubts.picking}
        items={items}
        values={savedValues}
        onPick={doubts.onPicked}
        onCancel={doubts.cancelPicking}
      />
      <DoubtDialog
        mode={doubts.doubtMode}
        can={can}
        readOnly={!canEdit}
        describe={doubts.describeDoubt}
        onChanged={() => void refreshAll()}
        onClose={doubts.closeDoubt}
      />
      <RecordImaging
        open={viewerOpen}
        onClose={() => setViewerOpen(false)}
        definition={definition}
        savedValues={savedValues}
        allItems={allItems}
        canEdit={canEdit}
        identificationCode={patient?.identificationCode ?? detail?.subject.identificationCode ?? ''}
      />
      <OverviewDialog
        open={dialog === 'overview' || dialog === 'preview'}
        subjectRecordId={subjectRecordId}
        scope={
          dialog === 'preview'
            ? ({ kind: 'print', crfId, crfDataRecordId: recordId } satisfies OverviewScope)
            : { kind: 'all' }
        }
        onClose={() => setDialog(null)}
      />
      <SignDialog
        open={dialog === 'sign'}
        subjectRecordId={subjectRecordId}
        studyId={studyId}
        canSign={Boolean(detail?.permissions.sign)}
        onClose={() => setDialog(null)}
      />
      <RecognitionDialog
        open={dialog === 'identify'}
        templates={recognition.templates}
        studyId={studyId}
        crfId={crfId}
        subjectRecordId={subjectRecordId}
        crfDataRecordId={recordId}
        siteRanges={siteRanges}
        onRecognised={recognition.onRecognised}
        onClose={() => setDialog(null)}
      />
    </div>
  );
}
