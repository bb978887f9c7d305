import { useCallback, useMemo, useState } from 'react';
import { useMutation, useQueries, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { Alert, App, DatePicker, Form, Input, Result, Select, Spin, Switch, Tooltip } from 'antd';
import { DownloadOutlined, LockOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import type { Dayjs } from 'dayjs';
import {
  DEFAULT_BASE_CONFIG,
  MSG,
  STUDY_FROZEN_MSG,
  STUDY_STATUS_FINISHED,
  type StudyButton,
  type StudyPermissionKey,
} from '@ecrf/core';
import { useNavigate } from 'react-router';
import { crfRecordApi } from '../../../api/crf.api';
import { crfApi, type CrfDetail } from '../../../api/study.api';
import {
  GENDER,
  subjectApi,
  subjectRecordApi,
  type RecordColumn,
  type RecordFilter,
  type SubjectRecordRow,
  type SubjectState,
} from '../../../api/subject.api';
import { PagedTable } from '../../../components/paged-table';
import { tableWidth, toTableColumns, useContainerWidth, type RowAction } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DATA_IMPORT_TEXT } from '../../../locales/data-import.zh-CN';
import { RANDOMIZATION_TEXT } from '../../../locales/randomization.zh-CN';
import { SEX_TEXT } from '../../../locales/sex.zh-CN';
import { SUBJECT_TEXT } from '../../../locales/subject.zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { saveDownload } from '../../../utils/download';
import { StudyAuthButton } from '../components/study-auth-button';
import { ImportDialog } from './components/import-dialog';
import { SUBJECT_BUTTONS } from '../study-access';
import { usePageReturn } from '../use-page-return';
import { useProjectStudy } from '../use-project-study';
import { crfColumnItems, formatCrfValue } from './crf-columns';
import { subjectColumns, subjectLayout } from './subject-columns';
import { PatientDialog, type PatientDialogState } from './components/patient-dialog';
import { OperatesDrawer } from './components/operates-drawer';
import { MessagesDrawer, type MessagesDrawerTarget } from './components/messages-drawer';
import { MESSAGES_TEXT } from '../../../locales/messages.zh-CN';
import { ReasonDialog } from '../../../components/reason-dialog';
import { StateDialog } from './components/state-dialog';
import { SiteMoveDialog, type SiteMoveTarget } from './components/site-move-dialog';
import { useRowLocks } from './use-row-locks';
import { STATE_OPTIONS } from './subject-state';
import '../project.css';
import { FilterButtons } from '../../../components/filter-buttons';
import { queryKeys } from '../../../api/query-keys';
import { randomizationApi } from '../../../api/randomization.api';
import { RandomizeDialog, type RandomizeTarget } from '../randomization/components/randomize-dialog';
import { RAND_BUTTONS } from '../randomization/rand-access';

/** The whole study's audit trail in one file is the monitors' (the SDV button), as the server decides. */
const AUDIT_EXPORT_BUTTON = 'business.crf.sdv';

interface FilterFields {
  identificationCode?: string;
  subjectName?: string;
  diseaseCode?: string;
  state?: SubjectState;
  enrolDate?: [Dayjs | null, Dayjs | null] | null;
}

function toFilter(values: FilterFields): RecordFilter {
  const [begin, end] = values.enrolDate ?? [];
  return compact({
    identificationCode: values.identificationCode?.trim(),
    subjectName: values.subjectName?.trim(),
    diseaseCode: values.diseaseCode,
    state: values.state,
    beginDate: begin?.format('YYYY-MM-DD'),
    endDate: end?.format('YYYY-MM-DD'),
  });
}

/** Kept outside the component so TanStack Query can keep the combined answer stable between renders. */
function combineDefinitions(results: ReadonlyArray<UseQueryResult<CrfDetail>>) {
  return results.flatMap((result) => (result.data ? [result.data.definition] : []));
}

const DEFAULT_FIELD_LABELS: Record<string, string> = Object.fromEntries(
  DEFAULT_BASE_CONFIG.map((f) => [f.name, f.header]),
);

type Can = (code: StudyButton | StudyPermissionKey) => boolean;

type OwnSites = ReadonlyArray<{ deptId: number; deptName: string }>;

function SubjectList({ studyId, can, ownSites }: { studyId: number; can: Can; ownSites: OwnSites }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<FilterFields>();
  const [filters, setFilters] = useState<RecordFilter>({});
  const [showDeleted, setShowDeleted] = useState(false);
  const [patient, setPatient] = useState<PatientDialogState | null>(null);
  const [stateRecord, setStateRecord] = useState<SubjectRecordRow | null>(null);
  const [removeRecord, setRemoveRecord] = useState<SubjectRecordRow | null>(null);
  const [restoreRecord, setRestoreRecord] = useState<SubjectRecordRow | null>(null);
  const [operatesRecord, setOperatesRecord] = useState<SubjectRecordRow | null>(null);
  const [messagesTarget, setMessagesTarget] = useState<MessagesDrawerTarget | null>(null);
  // 提醒记录 (issue 38): a patient's messages and opt-out, for members holding 患者提醒.
  const canMessages = can('business.messages');
  const [randomizeTarget, setRandomizeTarget] = useState<RandomizeTarget | null>(null);
  const [moveTarget, setMoveTarget] = useState<SiteMoveTarget | null>(null);
  // 随机 is offered once the study's randomization is configured (issue 15).
  const randomization = useQuery({
    queryKey: queryKeys.randomization.config(studyId),
    queryFn: () => randomizationApi.config(studyId).then((res) => res.data),
  });
  const randomizes = Boolean(randomization.data?.configured);
  const canRandomize = can(RAND_BUTTONS.subject);

  usePageReturn(
    useCallback(
      () => void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.list(studyId) }),
      [queryClient, studyId],
    ),
  );

  const canAdd = can(SUBJECT_BUTTONS.add);
  const canEdit = can(SUBJECT_BUTTONS.edit);
  const canRemove = can(SUBJECT_BUTTONS.remove);
  // 转移中心 is a manager's action: all sites and the patient edit button (docs/multi-centre.md).
  const allSites = can(SUBJECT_BUTTONS.allSites);
  const canMoveSite = allSites && canEdit;
  const lockOf = useRowLocks(studyId);

  const model = useQuery({
    queryKey: queryKeys.subject.formModel(studyId),
    queryFn: () => subjectApi.formModel(studyId).then((res) => res.data),
  });
  const recordColumns = useQuery({
    queryKey: queryKeys.subjectRecord.columns(studyId),
    queryFn: () => subjectRecordApi.columns(studyId).then((res) => res.data),
  });
  const crfList = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  // CRF columns show the item's title and choice texts, which only the definitions know.
  const needsDefinitions = (recordColumns.data ?? []).some((column) => column.source === 'crf');
  const definitions = useQueries({
    queries: (needsDefinitions ? (crfList.data ?? []) : []).map((crf) => ({
      queryKey: queryKeys.crf.detail(crf.id),
      queryFn: () => crfApi.get(crf.id).then((res) => res.data),
      staleTime: 5 * 60 * 1000,
    })),
    combine: combineDefinitions,
  });
  const crfItems = useMemo(() => crfColumnItems(definitions), [definitions]);

  const diseases = useMemo(() => model.data?.diseases ?? [], [model.data]);
  const fieldLabels = useMemo<Record<string, string>>(
    () => ({
      ...DEFAULT_FIELD_LABELS,
      ...Object.fromEntries(
        (model.data?.baseConfig ?? []).map((f) => [f.name, f.header || DEFAULT_FIELD_LABELS[f.name]]),
      ),
      deptId: SUBJECT_TEXT.dept,
    }),
    [model.data],
  );
  const [exporting, setExporting] = useState(false);
  const [importing, setImporting] = useState(false);
  const exportAudit = async () => {
    setExporting(true);
    try {
      saveDownload(await crfRecordApi.exportAudit({ studyId }), `稽查轨迹-${studyId}.csv`);
    } finally {
      setExporting(false);
    }
  };

  const refresh = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.studyIndex.all() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.study.all() });
  };
  const remove = useMutation({
    mutationFn: ({ record, reason }: { record: SubjectRecordRow; reason: string }) =>
      subjectRecordApi.remove(record.subjectRecordId, reason),
    onSuccess: (res) => {
      refresh(res);
      setRemoveRecord(null);
    },
  });
  const restore = useMutation({
    mutationFn: ({ record, reason }: { record: SubjectRecordRow; reason: string }) =>
      subjectRecordApi.restore(record.subjectRecordId, reason),
    onSuccess: (res) => {
      refresh(res);
      setRestoreRecord(null);
    },
  });

  const layoutInput = useMemo(() => {
    const baseValue = (key: string, row: SubjectRecordRow): string => {
      const value = (row as unknown as Record<string, unknown>)[key];
      if (value === null || value === undefined || value === '') return '';
      if (key === 'gender') {
        return value === GENDER.male ? SEX_TEXT.male : value === GENDER.female ? SEX_TEXT.female : '';
      }
      if (key === 'diseaseCode') return diseases.find((d) => d.diseaseCode === value)?.diseaseName ?? String(value);
      // A masked birth date (1960-**-**, no identifiers permission) is shown as the server sent it.
      if (key === 'birth') return String(value).includes('*') ? String(value) : formatDate(String(value), 'YYYY-MM-DD');
      return String(value);
    };
    const columns = recordColumns.data ?? [];
    const baseTitles = new Set(columns.filter((c) => c.source === 'base').map((c) => c.title));
    const crfTitle = (column: RecordColumn) => {
      const item = crfItems.get(column.key);
      if (!item) return column.title;
      // A CRF item named like a patient field (性别) says which form it comes from.
      if (!baseTitles.has(item.title)) return item.title;
      const form = definitions.find((d) => crfColumnItems([d]).has(item.name));
      return form ? `${form.title} · ${item.title}` : item.title;
    };
    const rowActions: RowAction<SubjectRecordRow>[] = showDeleted
      ? [
          {
            key: 'view',
            label: SUBJECT_TEXT.view,
            onClick: (row) => setPatient({ mode: 'crflook', subjectId: row.id }),
          },
          { key: 'operates', label: SUBJECT_TEXT.operates, onClick: (row) => setOperatesRecord(row) },
          { key: 'restore', label: SUBJECT_TEXT.restore, allowed: canRemove, onClick: (row) => setRestoreRecord(row) },
        ]
      : [
          { key: 'enter', label: SUBJECT_TEXT.enter, onClick: (row) => void navigate(`/crf/${row.subjectRecordId}`) },
          {
            key: 'view',
            label: SUBJECT_TEXT.view,
            onClick: (row) => setPatient({ mode: 'crflook', subjectId: row.id }),
          },
          {
            key: 'edit',
            label: SUBJECT_TEXT.edit,
            allowed: canEdit,
            disabled: (row) => Boolean(lockOf(row)),
            onClick: (row) => setPatient({ mode: 'edit', subjectId: row.id }),
          },
          {
            key: 'state',
            label: SUBJECT_TEXT.changeState,
            allowed: canEdit,
            disabled: (row) => Boolean(lockOf(row)),
            onClick: (row) => setStateRecord(row),
          },
          {
            key: 'moveSite',
            label: SUBJECT_TEXT.moveSite,
            allowed: canMoveSite,
            hidden: () => !canMoveSite,
            disabled: (row) => Boolean(lockOf(row)),
            onClick: (row) => setMoveTarget({ subjectId: row.id, subjectName: row.subjectName, deptId: row.deptId }),
          },
          {
            key: 'randomize',
            label: RANDOMIZATION_TEXT.randomize,
            allowed: canRandomize,
            hidden: () => !randomizes,
            disabled: (row) => Boolean(lockOf(row)),
            onClick: (row) =>
              setRandomizeTarget({
                subjectId: row.id,
                identificationCode: row.identificationCode,
                subjectName: row.subjectName,
              }),
          },
          { key: 'operates', label: SUBJECT_TEXT.operates, onClick: (row) => setOperatesRecord(row) },
          {
            key: 'messages',
            label: MESSAGES_TEXT.records,
            hidden: () => !canMessages,
            onClick: (row) => setMessagesTarget({ subjectId: row.id, identificationCode: row.identificationCode }),
          },
          // Asks for a reason in its own dialog.
          {
            key: 'remove',
            label: SUBJECT_TEXT.remove,
            allowed: canRemove,
            danger: true,
            disabled: (row) => Boolean(lockOf(row)),
            onClick: (row) => setRemoveRecord(row),
          },
        ];
    return {
      columns,
      baseValue,
      crfTitle,
      crfValue: (column: RecordColumn, row: SubjectRecordRow) =>
        formatCrfValue(row.columns?.[column.key], crfItems.get(column.key)),
      label: (key: string) => fieldLabels[key] ?? key,
      showDeleted,
      actions: rowActions,
      lockOf,
    };
  }, [
    recordColumns.data,
    diseases,
    crfItems,
    definitions,
    fieldLabels,
    showDeleted,
    canEdit,
    canRemove,
    canRandomize,
    canMoveSite,
    canMessages,
    randomizes,
    navigate,
    lockOf,
  ]);
  const [container, available] = useContainerWidth();
  const layout = subjectLayout(available, layoutInput);
  const pageColumns = subjectColumns(layout, layoutInput);
  const showIndex = layout !== 'card';

  const listFilters = useMemo(() => ({ ...filters, deleted: showDeleted }), [filters, showDeleted]);

  return (
    <>
      <Form
        form={filterForm}
        name="subject-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(toFilter(values))}
      >
        <Form.Item label={fieldLabels.identificationCode} name="identificationCode">
          <Input allowClear placeholder={fieldLabels.identificationCode} style={{ width: 150 }} />
        </Form.Item>
        <Form.Item label={fieldLabels.subjectName} name="subjectName">
          <Input allowClear placeholder={fieldLabels.subjectName} style={{ width: 140 }} />
        </Form.Item>
        <Form.Item label={fieldLabels.diseaseCode} name="diseaseCode">
          <Select
            allowClear
            placeholder={COMMON_TEXT.selectPlaceholder}
            style={{ width: 160 }}
            options={diseases.map((d) => ({ value: d.diseaseCode, label: d.diseaseName }))}
          />
        </Form.Item>
        <Form.Item label={SUBJECT_TEXT.state} name="state">
          <Select
            allowClear
            placeholder={COMMON_TEXT.selectPlaceholder}
            style={{ width: 110 }}
            options={STATE_OPTIONS}
          />
        </Form.Item>
        <Form.Item label={SUBJECT_TEXT.enrolDate} name="enrolDate">
          <DatePicker.RangePicker
            allowEmpty={[true, true]}
            placeholder={[SUBJECT_TEXT.beginDate, SUBJECT_TEXT.endDate]}
            style={{ width: 250 }}
          />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar project-toolbar">
        <StudyAuthButton
          allowed={canAdd}
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setPatient({ mode: 'add' })}
        >
          {SUBJECT_TEXT.add}
        </StudyAuthButton>
        <Tooltip title={SUBJECT_TEXT.exportAuditHint}>
          <span>
            <StudyAuthButton
              allowed={can(AUDIT_EXPORT_BUTTON)}
              icon={<DownloadOutlined aria-hidden />}
              loading={exporting}
              onClick={() => void exportAudit()}
            >
              {SUBJECT_TEXT.exportAudit}
            </StudyAuthButton>
          </span>
        </Tooltip>
        {/* Any member may open it: the server refuses the forms the user may not edit, sheet by sheet. */}
        <StudyAuthButton allowed icon={<UploadOutlined aria-hidden />} onClick={() => setImporting(true)}>
          {DATA_IMPORT_TEXT.open}
        </StudyAuthButton>
        <label className="project-toolbar-switch">
          <Switch size="small" checked={showDeleted} onChange={setShowDeleted} aria-label={SUBJECT_TEXT.showDeleted} />
          <span>{SUBJECT_TEXT.showDeleted}</span>
        </label>
      </div>
      <div ref={container}>
        <PagedTable<SubjectRecordRow>
          rowKey="subjectRecordId"
          size="middle"
          tableLayout="fixed"
          showIndex={showIndex}
          scroll={{ x: tableWidth(pageColumns, { index: showIndex }) }}
          columns={toTableColumns(pageColumns)}
          queryKey={queryKeys.subjectRecord.list(studyId)}
          filters={listFilters}
          fetchPage={(paging) => subjectRecordApi.list({ ...paging, ...listFilters, studyId }).then((res) => res.data)}
        />
      </div>
      <PatientDialog
        studyId={studyId}
        state={patient}
        canEdit={canEdit && !showDeleted}
        sites={{ own: ownSites, all: allSites }}
        onClose={() => setPatient(null)}
      />
      <SiteMoveDialog studyId={studyId} target={moveTarget} onClose={() => setMoveTarget(null)} />
      <StateDialog record={stateRecord} onClose={() => setStateRecord(null)} />
      {importing && <ImportDialog studyId={studyId} open onClose={() => setImporting(false)} />}
      <ReasonDialog
        open={Boolean(removeRecord)}
        danger
        title={removeRecord ? SUBJECT_TEXT.removeTitle(removeRecord.subjectName) : ''}
        hint={SUBJECT_TEXT.removeHint}
        label={SUBJECT_TEXT.removeReason}
        requiredMessage={SUBJECT_TEXT.removeReasonRequired}
        pending={remove.isPending}
        onSubmit={(reason) => remove.mutate({ record: removeRecord!, reason })}
        onClose={() => setRemoveRecord(null)}
      />
      <ReasonDialog
        open={Boolean(restoreRecord)}
        title={restoreRecord ? SUBJECT_TEXT.restoreTitle(restoreRecord.subjectName) : ''}
        hint={SUBJECT_TEXT.restoreHint}
        label={SUBJECT_TEXT.restoreReason}
        requiredMessage={SUBJECT_TEXT.restoreReasonRequired}
        pending={restore.isPending}
        onSubmit={(reason) => restore.mutate({ record: restoreRecord!, reason })}
        onClose={() => setRestoreRecord(null)}
      />
      <OperatesDrawer record={operatesRecord} onClose={() => setOperatesRecord(null)} />
      <MessagesDrawer
        studyId={studyId}
        target={messagesTarget}
        canChange={canMessages}
        onClose={() => setMessagesTarget(null)}
      />
      <RandomizeDialog studyId={studyId} target={randomizeTarget} onClose={() => setRandomizeTarget(null)} />
    </>
  );
}

/** 患者列表 (SUBJ-01): the study's patients, their progress, and what staff do with them. */
export default function SubjectListPage() {
  const { studyId, study, query, can } = useProjectStudy();

  let body;
  if (studyId === null || query.isError) body = <Result status="warning" title={MSG.forbidden} />;
  else if (query.isLoading || !study) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  else {
    body = (
      <>
        {study.status === STUDY_STATUS_FINISHED && (
          <Alert
            type="warning"
            showIcon
            icon={<LockOutlined />}
            title={STUDY_FROZEN_MSG}
            style={{ marginBottom: 12 }}
          />
        )}
        <SubjectList studyId={studyId} can={can} ownSites={study.myRole?.sites ?? []} />
      </>
    );
  }

  return (
    <div className="page-card">
      <h2 className="page-title">{SUBJECT_TEXT.title}</h2>
      {body}
    </div>
  );
}
