import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App, Modal, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { useLocation, useNavigate } from 'react-router';
import {
  FOLLOW_STATE_CODES,
  FOLLOW_STATE_COLORS,
  FOLLOW_STATE_NAMES,
  FOLLOW_STATES,
  type FollowState,
} from '@ecrf/core';
import { followApi, followCrfUrl, type FollowRecord, type FollowRecordFilter } from '../../../../api/follow.api';
import { queryKeys } from '../../../../api/query-keys';
import { personnelApi } from '../../../../api/study.api';
import { actionsColumn, TablePage, type PageColumn } from '../../../../components/table-page';
import { FOLLOW_TEXT } from '../../../../locales/follow.zh-CN';
import { useProjectStudy } from '../../use-project-study';
import { RecordDialog, type RecordDialogState } from './components/record-dialogs';
import { searchValuesOf } from './record-url';

const t = FOLLOW_TEXT;
const RECORD = 'btn:business.follow.record';
const STATE_OPTIONS = FOLLOW_STATE_CODES.map((value) => ({ value, label: FOLLOW_STATE_NAMES[value] }));
const pending = (row: FollowRecord) =>
  row.state === FOLLOW_STATES.NOT_DUE || row.state === FOLLOW_STATES.DUE || row.state === FOLLOW_STATES.OVERDUE;
const marked = (row: FollowRecord) => row.state === FOLLOW_STATES.LOST || row.state === FOLLOW_STATES.DELETED;

export function FollowStateTag({ state }: { state: number }) {
  return <Tag color={FOLLOW_STATE_COLORS[state as FollowState]}>{FOLLOW_STATE_NAMES[state as FollowState]}</Tag>;
}

function toFilters(values: Record<string, unknown>): FollowRecordFilter {
  const range = values.dateRange as [Dayjs | null, Dayjs | null] | undefined;
  const keyword = typeof values.identificationCode === 'string' ? values.identificationCode.trim() : '';
  return {
    ...(keyword ? { keyword } : {}),
    ...(values.state !== undefined && values.state !== null ? { state: String(values.state) } : {}),
    ...(range?.[0] ? { startDate: range[0].format('YYYY-MM-DD') } : {}),
    ...(range?.[1] ? { endDate: range[1].format('YYYY-MM-DD') } : {}),
    ...(values.responsibleUserId ? { responsibleUserId: Number(values.responsibleUserId) } : {}),
  };
}

/**
 * 随访记录 (FOLLOW-01, 05..08, 12..15): every patient visit of the study with its state; 填写 opens the visit's
 * form on the CRF page (tied to the visit on its first save), the other actions ask for a reason.
 */
export default function FollowRecordPage() {
  const { studyId, can } = useProjectStudy();
  const navigate = useNavigate();
  const { search } = useLocation();
  const { modal } = App.useApp();
  const [dialog, setDialog] = useState<RecordDialogState | null>(null);
  const staff = useQuery({
    queryKey: queryKeys.follow.staff(studyId),
    queryFn: () => personnelApi.list({ studyId: studyId!, pageNum: 1, pageSize: 999999 }).then((res) => res.data.list),
    enabled: studyId !== null,
  });
  if (studyId === null) return null;
  const mayAct = can(RECORD);

  const fill = (row: FollowRecord) => {
    const forms = row.crfs;
    if (forms.length === 1) return void navigate(followCrfUrl(row.subjectRecordId, forms[0]!));
    modal.info({
      title: t.chooseForm,
      content: (
        <ul className="follow-form-choice">
          {forms.map((f) => (
            <li key={f.followRecordCrfId}>
              <a
                href={followCrfUrl(row.subjectRecordId, f)}
                onClick={(e) => {
                  e.preventDefault();
                  Modal.destroyAll();
                  void navigate(followCrfUrl(row.subjectRecordId, f));
                }}
              >
                {f.title}
              </a>
            </li>
          ))}
        </ul>
      ),
    });
  };

  const columns: PageColumn<FollowRecord>[] = [
    {
      title: t.code,
      dataIndex: 'identificationCode',
      width: 110,
      search: { label: t.keyword, width: 180, placeholder: t.keyword },
    },
    { title: t.patientName, dataIndex: 'subjectName', width: 90 },
    {
      title: t.visitName,
      dataIndex: 'visitName',
      minWidth: 120,
      render: (name: string, row) => (
        <>
          {name}
          {row.custom && <Tag style={{ marginInlineStart: 4 }}>{t.customVisit}</Tag>}
        </>
      ),
      text: (row) => row.visitName,
    },
    {
      title: t.plannedDate,
      dataIndex: 'plannedDate',
      kind: 'date',
      search: { name: 'dateRange', label: t.dateRange, type: 'date-range', width: 240 },
    },
    {
      title: t.window,
      key: 'window',
      width: 180,
      render: (_: unknown, row) => `${row.windowStart} ~ ${row.windowEnd}`,
      text: (row) => `${row.windowStart} ~ ${row.windowEnd}`,
    },
    {
      title: t.state,
      dataIndex: 'state',
      kind: 'status',
      width: 90,
      search: { options: STATE_OPTIONS, width: 120 },
      render: (state: number) => <FollowStateTag state={state} />,
    },
    {
      title: t.responsible,
      dataIndex: 'responsibleName',
      width: 90,
      hideOrder: 2,
      search: {
        name: 'responsibleUserId',
        type: 'select',
        options: (staff.data ?? []).map((m) => ({ value: m.userId, label: m.name })),
        width: 140,
      },
    },
    { title: t.completedOn, dataIndex: 'completedOn', kind: 'date', hideOrder: 1 },
    // 失访 and 已删除 are read with their reason: never left out.
    { title: t.reason, dataIndex: 'markReason', minWidth: 120 },
    actionsColumn<FollowRecord>([
      { key: 'fill', label: t.fill, hidden: (row) => marked(row) || row.crfs.length === 0, onClick: fill },
      {
        key: 'lost',
        label: t.lost,
        allowed: mayAct,
        hidden: (row) => !pending(row),
        onClick: (row) => setDialog({ kind: 'lost', row }),
      },
      {
        key: 'date',
        label: t.changeDate,
        allowed: mayAct,
        hidden: (row) => !pending(row),
        onClick: (row) => setDialog({ kind: 'date', row }),
      },
      {
        key: 'restore',
        label: t.restore,
        allowed: mayAct,
        hidden: (row) => !marked(row),
        onClick: (row) => setDialog({ kind: 'restore', row }),
      },
      {
        key: 'remove',
        label: t.remove,
        allowed: mayAct,
        danger: true,
        hidden: (row) => !pending(row),
        onClick: (row) => setDialog({ kind: 'remove', row }),
      },
      {
        key: 'custom',
        label: t.addCustom,
        allowed: mayAct,
        onClick: (row) => setDialog({ kind: 'custom', row }),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{t.recordTitle}</h2>
      <TablePage<FollowRecord, FollowRecordFilter>
        // Opened again from another count of 随访概览: the list starts over with that count's filter.
        key={search}
        initialValues={searchValuesOf(search)}
        name="follow-record-filter"
        rowKey="followRecordId"
        columns={columns}
        toFilters={toFilters}
        queryKey={queryKeys.follow.records(studyId)}
        fetchPage={(query) => followApi.records({ ...query, studyId }).then((res) => res.data)}
      />
      <RecordDialog studyId={studyId} state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
