import { useState } from 'react';
import '../study.css';
import { Checkbox, Tag } from 'antd';
import { ALL_PERMISSIONS } from '@ecrf/core';
import type { Dayjs } from 'dayjs';
import { operLogApi, type OperLog, type OperLogQuery } from '../../../api/monitor.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { T } from '../../../locales/zh-CN';
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
  { value: 0, label: T.operlog.success },
  { value: 1, label: T.operlog.failure },
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
    { title: T.operlog.module, dataIndex: 'title', width: 120, search: { width: 160 } },
    { title: T.operlog.businessType, dataIndex: 'businessType', kind: 'status', width: 72, render: businessTypeLabel },
    { title: T.operlog.requestMethod, dataIndex: 'requestMethod', kind: 'status', width: 80, hideOrder: 3 },
    { title: T.operlog.operName, dataIndex: 'operName', width: 180, search: { width: 160 } },
    { title: T.operlog.operIp, dataIndex: 'operIp', width: 120, hideOrder: 1 },
    { title: T.operlog.operUrl, dataIndex: 'operUrl', minWidth: 150 },
    {
      title: T.common.status,
      dataIndex: 'status',
      kind: 'status',
      width: 70,
      search: { options: STATUS_OPTIONS, width: 110 },
      render: (status: number) =>
        status === 0 ? <Tag color="success">{T.operlog.success}</Tag> : <Tag color="error">{T.operlog.failure}</Tag>,
    },
    {
      title: T.operlog.operTime,
      dataIndex: 'operTime',
      kind: 'datetime',
      search: { name: 'range', type: 'date-range', placeholder: [T.operlog.beginTime, T.operlog.endTime] },
    },
    { title: T.operlog.costTime, dataIndex: 'costTime', kind: 'number', width: 90, align: 'right', hideOrder: 2 },
    actionsColumn<OperLog>([{ key: 'detail', label: T.common.detail, onClick: (log) => setDetail(log) }]),
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
      {T.operlog.allStudies}
    </Checkbox>
  ) : null;
  if (all) {
    return (
      <div className="page-card">
        <div className="study-page-head">
          <h2 className="page-title">{T.operlog.title}</h2>
          <div className="study-page-head-extra">{extra}</div>
        </div>
        <OperationLog studyId={undefined} />
      </div>
    );
  }
  return (
    <StudyScope title={T.operlog.title} extra={extra}>
      {(study) => <OperationLog key={study.id} studyId={study.id} />}
    </StudyScope>
  );
}
