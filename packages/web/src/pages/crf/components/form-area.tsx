import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { App, Button, Drawer, Result, Spin } from 'antd';
import { UnorderedListOutlined } from '@ant-design/icons';
import {
  crfRecordApi,
  type CrfDoubtMark,
  type CrfMenuNode,
  type CrfPatient,
  type CrfRecordDetail,
  type CrfSaveResult,
} from '../../../api/crf.api';
import type { ItemMark } from '../../../crf';
import { useCrfScreen } from '../../../layouts/crf-layout';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { DOUBT_TEXT } from '../../../locales/doubt.zh-CN';
import { isRepeatable } from '../crf-menu';
import { formItems, formatLooseValue, formatValue, itemTitle, nodesByName, type FormItem } from '../crf-values';
import { locateItem } from '../locate-item';
import { recognitionApi } from '../../../api/recognition.api';
import { identifyTemplates } from '../recognition/identify-templates';
import { RecognitionDialog } from '../recognition/recognition-dialog';
import { RecognitionSources } from '../recognition/recognition-sources';
import type { RecognitionOutcome } from '../recognition/recognise-flow';
import { printCrf, printInHiddenFrame, saveBlob } from '../print';
import { ImagingViewer } from '../../../components/imaging/imaging-viewer';
import { externalViewerUrl, recordFiles } from '../../../components/imaging/record-files';
import { VIEWER_T } from '../../../components/imaging/texts';
import { sendSpineImage } from '../../../components/spine/send-image';
import { useFileNames } from '../../../stores/file-names.store';
import { CrfEditor } from './crf-editor';
import { CRF_BUTTONS, CrfToolbar } from './crf-toolbar';
import { LockBar, useRecordLock } from './lock-bar';
import { DoubtDialog, type DoubtDialogMode } from './doubt-dialog';
import { DoubtPicker, type PickedItem } from './doubt-picker';
import { HistoryDrawer, type HistoryTarget } from './history-drawer';
import { ItemPanel, ItemSheet } from './item-panel';
import { OverviewDialog, type OverviewScope } from './overview-dialog';
import { RecordTable } from './record-table';
import { SignDialog } from './sign-dialog';

const t = CRF_PAGE_TEXT;

/** The address's record: a saved record's id, "new" for one not saved yet, or none chosen. */
export type RecordParam = number | 'new' | null;

export interface FormAreaProps {
  subjectRecordId: number;
  form: CrfMenuNode;
  patient: CrfPatient | undefined;
  recordParam: RecordParam;
  /** Points the address at a record (replace: without a new history entry). */
  setRecord: (record: RecordParam, replace?: boolean) => void;
  can: (code: string) => boolean;
  doubtOn: boolean;
}

const detailKey = (subjectRecordId: number, crfId: number, record: RecordParam) =>
  queryKeys.crfRecord.detail(subjectRecordId, crfId, record ?? 'auto');

/** Whether a detail answers the record the address names. */
function matches(detail: CrfRecordDetail, record: RecordParam): boolean {
  if (typeof record === 'number') return detail.crfDataRecord?.id === record;
  if (record === 'new') return detail.crfDataRecord === null;
  return true;
}

/**
 * One form of the casebook: the repeatable form's records, the editor, the item markers and every
 * dialog of the form's top-bar buttons.
 */
export function FormArea({ subjectRecordId, form, patient, recordParam, setRecord, can, doubtOn }: FormAreaProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const screen = useCrfScreen();
  const crfId = form.crfId!;
  const repeatable = isRepeatable(form);

  const dataList = useQuery({
    queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId),
    queryFn: () => crfRecordApi.dataList(subjectRecordId, crfId).then((res) => res.data),
    enabled: repeatable,
  });

  // A repeatable form opened without a record opens its latest one, or a new one when it has none.
  const waitingForChoice = repeatable && recordParam === null;
  const rows = dataList.data;
  useEffect(() => {
    if (!waitingForChoice || !rows) return;
    const last = rows.at(-1);
    setRecord(last ? last.crfDataRecordId : 'new', true);
  }, [waitingForChoice, rows, setRecord]);

  const detailQuery = useQuery({
    queryKey: detailKey(subjectRecordId, crfId, recordParam),
    queryFn: () =>
      crfRecordApi
        .detail(subjectRecordId, crfId, typeof recordParam === 'number' ? recordParam : null)
        .then((res) => res.data),
    enabled: !waitingForChoice,
    // A record opened again is read afresh: a nurse must never start typing into old values.
    gcTime: 0,
  });

  // The editor lives as long as the user works on one record. A new record that receives its id
  // from its first save keeps its editor (and whatever was typed meanwhile).
  const [adopted, setAdopted] = useState<number | null>(null);
  const [session, setSession] = useState<{ record: RecordParam; epoch: number }>({ record: recordParam, epoch: 0 });
  if (session.record !== recordParam) {
    const keep = typeof recordParam === 'number' && adopted === recordParam;
    setSession({ record: recordParam, epoch: keep ? session.epoch : session.epoch + 1 });
  }
  const [mounted, setMounted] = useState<{ epoch: number; detail: CrfRecordDetail } | null>(null);
  const fresh = detailQuery.data && matches(detailQuery.data, session.record) ? detailQuery.data : null;
  if (fresh && (mounted?.epoch !== session.epoch || mounted.detail !== fresh)) {
    setMounted({ epoch: session.epoch, detail: fresh });
  }
  const detail = mounted?.epoch === session.epoch ? mounted.detail : null;

  const definition = detail?.crf.definition;
  const allItems = useMemo(() => (definition ? formItems(definition) : []), [definition]);
  const [visible, setVisible] = useState<ReadonlySet<string> | null>(null);
  const items = useMemo(
    () => (visible ? allItems.filter((item) => visible.has(item.name)) : allItems),
    [allItems, visible],
  );
  const nodes = useMemo(() => (definition ? nodesByName(definition) : new Map()), [definition]);
  const recordId = detail?.crfDataRecord?.id ?? null;

  const bypassGuardRef = useRef(false);
  const [sdvMode, setSdvMode] = useState(false);
  const [sdvBusy, setSdvBusy] = useState(false);
  const [history, setHistory] = useState<HistoryTarget | null>(null);
  const [doubtMode, setDoubtMode] = useState<DoubtDialogMode | null>(null);
  const [picking, setPicking] = useState(false);
  const [viewerOpen, setViewerOpen] = useState(false);
  const fileNames = useFileNames();
  const [dialog, setDialog] = useState<'overview' | 'preview' | 'sign' | 'identify' | null>(null);
  const [printing, setPrinting] = useState(false);
  const [unsaved, setUnsaved] = useState(false);
  // Without room beside the form, the item list is a drawer and each item opens its own sheet.
  const [itemsOpen, setItemsOpen] = useState(false);
  const [sheetItem, setSheetItem] = useState<string | null>(null);
  const pendingLocate = useRef<FormItem | null>(null);
  const fillRef = useRef<((values: Readonly<Record<string, unknown>>) => void) | null>(null);
  /** Recognitions made on a record not saved yet: linked to it once its first save gave it an id (SDV). */
  const pendingRecognitions = useRef<number[]>([]);

  const refreshAll = useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.menu(subjectRecordId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.formDetails(subjectRecordId, crfId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.audits() }),
    ]);
  }, [queryClient, subjectRecordId, crfId]);

  const onSaved = useCallback(
    (result: CrfSaveResult, created: boolean) => {
      if (created && repeatable) {
        setAdopted(result.crfDataRecordId);
        setRecord(result.crfDataRecordId, true);
      }
      if (created) {
        const studyOf = patient?.studyId ?? 0;
        for (const recognitionId of pendingRecognitions.current.splice(0)) {
          void recognitionApi
            .linkRecord(studyOf, recognitionId, result.crfDataRecordId)
            .then(() =>
              queryClient.invalidateQueries({
                queryKey: queryKeys.crfRecord.recognitionSources(subjectRecordId, crfId),
              }),
            )
            .catch(() => undefined);
        }
      }
      void refreshAll();
    },
    [repeatable, setRecord, refreshAll, patient?.studyId, queryClient, subjectRecordId, crfId],
  );

  const reload = useCallback(() => {
    setSession((s) => ({ ...s, epoch: s.epoch + 1 }));
    // Reset, not just invalidate: the new editor must start from what the server holds now.
    void queryClient.resetQueries({ queryKey: queryKeys.crfRecord.formDetails(subjectRecordId, crfId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.menu(subjectRecordId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId) });
  }, [queryClient, subjectRecordId, crfId]);

  // ---- top-bar actions --------------------------------------------------------------------------
  const print = async () => {
    setPrinting(true);
    try {
      const outcome = await printCrf(
        { subjectRecordId, crfId, crfDataRecordId: recordId },
        {
          hasTemplate: (id) => crfRecordApi.hasPrintTemplate(id).then((res) => res.data),
          document: (params, format) => crfRecordApi.printWord({ ...params, format }).then((res) => res.data),
          openPreview: () => setDialog('preview'),
          printFrame: (blob) => printInHiddenFrame(blob),
          save: (blob) => saveBlob(blob, `${patient?.subjectName ?? ''}-${form.title}.docx`),
        },
      );
      if (outcome === 'saved') void message.info(t.printWordDownloaded);
    } catch {
      // The request wrapper has shown why.
    } finally {
      setPrinting(false);
    }
  };

  const openDoubtPicker = () => {
    // QRY-07/QRY-20: queries are raised on the saved record, so unsaved values are saved first.
    if (!recordId || unsaved) {
      void message.warning(DOUBT_TEXT.saveFirst);
      return;
    }
    setPicking(true);
  };

  const savedValues = detail?.crfDataRecord?.values ?? {};
  const onPicked = ({ item, column }: PickedItem) => {
    setPicking(false);
    const existing = (detail?.crfDoubts ?? []).find((d) =>
      column
        ? d.groupName === item.name && d.groupIndex === column.index && d.itemName === column.name
        : d.itemName === item.name && !d.groupName,
    );
    if (existing && existing.doubtType === 1) {
      void message.info(DOUBT_TEXT.pickHasOpen);
      setDoubtMode({ kind: 'history', doubtId: existing.doubtId });
      return;
    }
    const rows = column ? (savedValues[item.name] as Array<Record<string, unknown>> | undefined) : undefined;
    const row = column ? (rows?.[column.index] ?? {}) : savedValues;
    const columnNode = column ? item.columns.find((c) => c.name === column.name) : undefined;
    setDoubtMode({
      kind: 'start',
      target: {
        crfDataRecordId: recordId,
        itemName: column ? column.name : item.name,
        itemTitle: column ? `${DOUBT_TEXT.groupRow(item.title, column.index)} · ${column.title}` : item.title,
        groupName: column ? item.name : null,
        groupIndex: column ? column.index : null,
        value: column
          ? formatValue(columnNode, row[column.name], row)
          : formatValue(item.node, savedValues[item.name], savedValues),
      },
    });
  };

  const describeDoubt = useCallback(
    (d: { itemName: string; groupName: string | null; groupIndex: number | null }) => ({
      title: d.groupName
        ? `${itemTitle(nodes, d.groupName)} · ${itemTitle(nodes, d.itemName)}`
        : itemTitle(nodes, d.itemName),
      format: (value: unknown) => formatLooseValue(nodes, d.itemName, value),
    }),
    [nodes],
  );

  const onDoubts = useCallback(
    (_item: FormItem, doubts: CrfDoubtMark[]) => setDoubtMode({ kind: 'history', doubtId: doubts[0]!.doubtId }),
    [],
  );
  const onHistory = useCallback(
    (item: FormItem | null) => {
      if (!recordId) return;
      setHistory({ crfDataRecordId: recordId, itemName: item?.name, title: item?.title ?? form.title });
    },
    [recordId, form.title],
  );
  const onSdv = useCallback(
    async (itemNames: string[] | undefined, verified: boolean) => {
      if (!recordId) {
        void message.warning(t.sdvNeedsRecord);
        return;
      }
      setSdvBusy(true);
      try {
        await crfRecordApi.sdv({ crfDataRecordId: recordId, itemNames, verified });
        await refreshAll();
        // The tick is the monitor's statement that the value matches the source: say that it is recorded.
        const titles = (itemNames ?? []).map((name) => itemTitle(nodes, name)).join('、');
        void message.success(
          itemNames
            ? verified
              ? t.sdvDone(titles)
              : t.sdvUndone(titles)
            : verified
              ? t.sdvFormDoneMsg
              : t.sdvFormUndoneMsg,
        );
      } catch {
        // The request wrapper has shown why.
      } finally {
        setSdvBusy(false);
      }
    },
    [recordId, refreshAll, message, nodes],
  );
  const onLocate = useCallback(
    (item: FormItem) => {
      // From the item drawer: the form is scrolled once the drawer has closed and given the focus back.
      if (itemsOpen) {
        pendingLocate.current = item;
        setItemsOpen(false);
        return;
      }
      locateItem(item.name, item.name);
    },
    [itemsOpen],
  );

  const studyId = patient?.studyId ?? detail?.subject.studyId ?? 0;
  const lockState = useRecordLock(studyId, subjectRecordId, recordId).data;
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
  const crfOption = detail?.crf.option;
  const crfTitle = detail?.crf.title;
  const templates = useMemo(
    () => (definition && crfOption ? identifyTemplates(definition, crfOption, crfTitle ?? '') : []),
    [definition, crfOption, crfTitle],
  );
  const onRecognised = useCallback(
    (outcome: RecognitionOutcome) => {
      if (outcome.recognitionId !== null && recordId === null) pendingRecognitions.current.push(outcome.recognitionId);
      if (outcome.filled.length > 0) fillRef.current?.(outcome.values);
      void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.recognitionSources(subjectRecordId, crfId) });
    },
    [recordId, queryClient, subjectRecordId, crfId],
  );

  const sdvMarks = detail?.crfDataRecord?.sdv;
  const openDoubts = detail?.crfDoubts;
  const itemMarks = useMemo(() => {
    const marks: Record<string, ItemMark> = {};
    for (const name of Object.keys(sdvMarks ?? {})) marks[name] = 'verified';
    for (const d of openDoubts ?? []) marks[d.groupName ?? d.itemName] = 'doubt';
    return marks;
  }, [sdvMarks, openDoubts]);
  const openSheet = useCallback((name: string) => setSheetItem(name), []);
  const sheet = sheetItem ? items.find((item) => item.name === sheetItem) : undefined;
  const sheetDoubts = sheet
    ? (detail?.crfDoubts ?? []).filter((d) => d.itemName === sheet.name || d.groupName === sheet.name)
    : [];

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
  } else if (!detail || !editorDetail || !permissions) {
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
          <CrfEditor
            key={session.epoch}
            locked={locked}
            subjectRecordId={subjectRecordId}
            crfId={crfId}
            studyId={studyId}
            detail={editorDetail}
            onSaved={onSaved}
            onDirtyChange={setUnsaved}
            onVisibleChange={setVisible}
            onReload={reload}
            bypassGuardRef={bypassGuardRef}
            onItemOpen={screen.panelOnDemand ? openSheet : undefined}
            itemMarks={itemMarks}
            fillRef={fillRef}
          />
        </div>
        {!screen.panelOnDemand && (
          <aside className="crf-side-card">
            <ItemPanel
              items={items}
              recordId={recordId}
              sdv={detail.crfDataRecord?.sdv ?? {}}
              doubts={detail.crfDoubts}
              sdvMode={sdvMode}
              canSdv={permissions.sdv}
              sdvBusy={sdvBusy}
              onHistory={onHistory}
              onDoubts={onDoubts}
              onSdv={(names, verified) => void onSdv(names, verified)}
              onLocate={onLocate}
            />
          </aside>
        )}
      </div>
    );
  }

  return (
    <div className="crf-form-area">
      <CrfToolbar
        lockedText={locked ? (lockState?.message ?? undefined) : undefined}
        formOpen={Boolean(detail)}
        showIdentify={templates.length > 0}
        showDoubt={doubtOn && can(CRF_BUTTONS.doubt)}
        showDicom={can(CRF_BUTTONS.dicom)}
        showSdv={Boolean(permissions?.sdv)}
        sdvMode={sdvMode}
        signatureInvalid={detail?.signature ? !detail.signature.valid : false}
        printing={printing}
        onPrint={() => void print()}
        onDicom={() => setViewerOpen(true)}
        onIdentify={() => (canEdit ? setDialog('identify') : void message.warning(t.readOnly))}
        onDoubt={openDoubtPicker}
        onOverview={() => setDialog('overview')}
        onSign={() => setDialog('sign')}
        onSdv={() => setSdvMode(!sdvMode)}
        compact={screen.compact}
        onItems={screen.panelOnDemand && detail ? () => setItemsOpen(true) : undefined}
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
      {screen.panelOnDemand && detail && permissions && (
        <>
          <Drawer
            open={itemsOpen}
            placement="right"
            size={screen.phone ? '100%' : 380}
            title={t.itemsToggle}
            onClose={() => setItemsOpen(false)}
            afterOpenChange={(open) => {
              if (open || !pendingLocate.current) return;
              const item = pendingLocate.current;
              pendingLocate.current = null;
              locateItem(item.name, item.name);
            }}
            rootClassName="crf-items-drawer"
            styles={{ body: { padding: 0 } }}
          >
            <ItemPanel
              items={items}
              recordId={recordId}
              sdv={detail.crfDataRecord?.sdv ?? {}}
              doubts={detail.crfDoubts}
              sdvMode={sdvMode}
              canSdv={permissions.sdv}
              sdvBusy={sdvBusy}
              onHistory={onHistory}
              onDoubts={onDoubts}
              onSdv={(names, verified) => void onSdv(names, verified)}
              onLocate={onLocate}
            />
          </Drawer>
          <Drawer
            open={sheet !== undefined}
            placement="bottom"
            size="auto"
            title={sheet ? t.itemPanelOf(sheet.title) : ''}
            onClose={() => setSheetItem(null)}
            rootClassName="crf-item-sheet-drawer"
          >
            {sheet && (
              <ItemSheet
                item={sheet}
                recordId={recordId}
                mark={detail.crfDataRecord?.sdv?.[sheet.name]}
                doubts={sheetDoubts}
                sdvMode={sdvMode}
                canSdv={permissions.sdv}
                sdvBusy={sdvBusy}
                onHistory={onHistory}
                onDoubts={onDoubts}
                onSdv={(names, verified) => void onSdv(names, verified)}
              />
            )}
          </Drawer>
        </>
      )}
      <DoubtPicker
        open={picking}
        items={items}
        values={savedValues}
        onPick={onPicked}
        onCancel={() => setPicking(false)}
      />
      <DoubtDialog
        mode={doubtMode}
        can={can}
        readOnly={!canEdit}
        describe={describeDoubt}
        onChanged={() => void refreshAll()}
        onClose={() => setDoubtMode(null)}
      />
      <ImagingViewer
        open={viewerOpen}
        onClose={() => setViewerOpen(false)}
        files={viewerOpen && definition ? recordFiles(definition.children, savedValues, fileNames) : []}
        spineItems={allItems
          .filter((i) => i.node.type === 'spineCobb' || i.node.type === 'spineMeasure')
          .map((i) => ({ name: i.name, title: i.title }))}
        onSendToSpine={
          canEdit
            ? (item, image) => {
                // The widget takes the frame as if chosen in its upload area: stored, then shown ready to measure.
                if (sendSpineImage(item, image)) setViewerOpen(false);
                else void message.warning(VIEWER_T.spineItemHidden);
              }
            : undefined
        }
        externalUrl={externalViewerUrl(
          import.meta.env.VITE_DICOM_VIEWER_URL,
          patient?.identificationCode ?? detail?.subject.identificationCode ?? '',
        )}
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
        templates={templates}
        studyId={studyId}
        crfId={crfId}
        subjectRecordId={subjectRecordId}
        crfDataRecordId={recordId}
        onRecognised={onRecognised}
        onClose={() => setDialog(null)}
      />
    </div>
  );
}
