import { useState } from 'react';
import '../study.css';
import { Checkbox, Tag } from 'antd';
import { ALL_PERMISSIONS } from '@ecrf/core';
import type { Dayjs } from 'dayjs';
import { operLogApi, type OperLog, type OperLogQuery } from '../../../api/monitor.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { OPERLOG_TEXT } from '../../../locales/operlog.zh-CN';
import { compact } from '../../../utils/compact';
import { DATE_TIME_FORMAT } from '../../../utils/format-date';
import { OperLogDetailDialog } from './components/operlog-detail-dialog';
import { businessTypeLabel } from './operlog-labels';
import { useSession } from '../../../stores/session.store';
import { StudyScope } from '../components/study-scope';

type Filters = Omit<OperLogQuery, 'pageNum' | 'pageSize'>;

interface FilterValues {
  title?: string;
  operName?: string;
  status?: number;
  range?: [Dayjs | null, Dayjs | null] | null;
}

const STATUS_OPTIONS = [
  { value: 0, label: OPERLOG_TEXT.success },
  { value: 1, label: OPERLOG_TEXT.failure },
];

function toFilters(values: FilterValues): Filters {
  const [begin, end] = values.range ?? [null, null];
  return compact({
    title: values.title?.trim(),
    operName: values.operName?.trim(),
    status: values.status,
    beginTime: begin ? begin.startOf('day').format(DATE_TIME_FORMAT) : undefined,
    endTime: end ? end.endOf('day').format(DATE_TIME_FORMAT) : undefined,
  });
}

/** One study's operations, or (studyId undefined) the whole log for a system administrator. */
function OperationLog({ studyId }: { studyId: number | undefined }) {
  const [detail, setDetail] = useState<OperLog | null>(null);

  const columns: PageColumn<OperLog>[] = [
    // A narrower page leaves out 操作地址, 耗时 and 请求方式 in that order; 详情 shows them all.
    { title: OPERLOG_TEXT.module, dataIndex: 'title', width: 120, search: { width: 160 } },
    {
      title: OPERLOG_TEXT.businessType,
      dataIndex: 'businessType',
      kind: 'status',
      width: 72,
      render: businessTypeLabel,
    },
    { title: OPERLOG_TEXT.requestMethod, dataIndex: 'requestMethod', kind: 'status', width: 80, hideOrder: 3 },
    { title: OPERLOG_TEXT.operName, dataIndex: 'operName', width: 180, search: { width: 160 } },
    { title: OPERLOG_TEXT.operIp, dataIndex: 'operIp', width: 120, hideOrder: 1 },
    { title: OPERLOG_TEXT.operUrl, dataIndex: 'operUrl', minWidth: 150 },
    {
      title: COMMON_TEXT.status,
      dataIndex: 'status',
      kind: 'status',
      width: 70,
      search: { options: STATUS_OPTIONS, width: 110 },
      render: (status: number) =>
        status === 0 ? (
          <Tag color="success">{OPERLOG_TEXT.success}</Tag>
        ) : (
          <Tag color="error">{OPERLOG_TEXT.failure}</Tag>
        ),
    },
    {
      title: OPERLOG_TEXT.operTime,
      dataIndex: 'operTime',
      kind: 'datetime',
      search: { name: 'range', type: 'date-range', placeholder: [OPERLOG_TEXT.beginTime, OPERLOG_TEXT.endTime] },
    },
    { title: OPERLOG_TEXT.costTime, dataIndex: 'costTime', kind: 'number', width: 90, align: 'right', hideOrder: 2 },
    actionsColumn<OperLog>([{ key: 'detail', label: COMMON_TEXT.detail, onClick: (log) => setDetail(log) }]),
  ];

  return (
    <>
      <TablePage<OperLog, Filters>
        name="operlog-filter"
        rowKey="operId"
        columns={columns}
        toFilters={(values) => toFilters(values as FilterValues)}
        queryKey={queryKeys.operlog.list(studyId ?? 'all')}
        fetchPage={(query) => operLogApi.list({ ...query, studyId }).then((res) => res.data)}
      />
      <OperLogDetailDialog log={detail} onClose={() => setDetail(null)} />
    </>
  );
}

/**
 * 操作日志 (SYS-25): a study's operations for its staff; a system administrator may also read
 * the whole log. The log holds who, what and when, never the values (those are in the audit trail).
 */
export default function OperationLogPage() {
  const admin = useSession((state) => state.permissions.includes(ALL_PERMISSIONS));
  const [all, setAll] = useState(false);
  const extra = admin ? (
    <Checkbox checked={all} onChange={(e) => setAll(e.target.checked)}>
      {OPERLOG_TEXT.allStudies}
    </Checkbox>
  ) : null;
  if (all) {
    return (
      <div className="page-card">
        <div className="study-page-head">
          <h2 className="page-title">{OPERLOG_TEXT.title}</h2>
          <div className="study-page-head-extra">{extra}</div>
        </div>
        <OperationLog studyId={undefined} />
      </div>
    );
  }
  return (
    <StudyScope title={OPERLOG_TEXT.title} extra={extra}>
      {(study) => <OperationLog key={study.id} studyId={study.id} />}
    </StudyScope>
  );
}
