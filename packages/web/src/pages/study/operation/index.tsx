import { useState } from 'react';
import '../study.css';
import { Button, Checkbox, DatePicker, Form, Input, Select, Tag, type TableColumnsType } from 'antd';
import { ALL_PERMISSIONS } from '@ecrf/core';
import type { Dayjs } from 'dayjs';
import { operLogApi, type OperLog, type OperLogQuery } from '../../../api/monitor.api';
import { PagedTable } from '../../../components/paged-table';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { DATE_TIME_FORMAT, formatDate } from '../../../utils/format-date';
import { OperLogDetailDialog } from './components/operlog-detail-dialog';
import { businessTypeLabel } from './operlog-labels';
import { FilterButtons } from '../../../components/filter-buttons';
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
  const [filterForm] = Form.useForm<FilterValues>();
  const [filters, setFilters] = useState<Filters>({});
  const [detail, setDetail] = useState<OperLog | null>(null);

  const columns: TableColumnsType<OperLog> = [
    { title: T.operlog.module, dataIndex: 'title', width: 140 },
    { title: T.operlog.businessType, dataIndex: 'businessType', width: 100, render: businessTypeLabel },
    { title: T.operlog.requestMethod, dataIndex: 'requestMethod', width: 100 },
    { title: T.operlog.operName, dataIndex: 'operName', width: 160 },
    { title: T.operlog.operIp, dataIndex: 'operIp', width: 140 },
    { title: T.operlog.operUrl, dataIndex: 'operUrl', width: 240, ellipsis: true },
    {
      title: T.common.status,
      dataIndex: 'status',
      width: 80,
      render: (status: number) =>
        status === 0 ? <Tag color="success">{T.operlog.success}</Tag> : <Tag color="error">{T.operlog.failure}</Tag>,
    },
    { title: T.operlog.operTime, dataIndex: 'operTime', width: 180, render: (value: string) => formatDate(value) },
    { title: T.operlog.costTime, dataIndex: 'costTime', width: 110, align: 'right' },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 80,
      render: (_: unknown, log) => (
        <Button type="link" size="small" onClick={() => setDetail(log)}>
          {T.common.detail}
        </Button>
      ),
    },
  ];

  return (
    <>
      <Form
        form={filterForm}
        name="operlog-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(toFilters(values))}
      >
        <Form.Item label={T.operlog.module} name="title">
          <Input allowClear placeholder={T.operlog.module} style={{ width: 160 }} />
        </Form.Item>
        <Form.Item label={T.operlog.operName} name="operName">
          <Input allowClear placeholder={T.operlog.operName} style={{ width: 160 }} />
        </Form.Item>
        <Form.Item label={T.common.status} name="status">
          <Select allowClear options={STATUS_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 110 }} />
        </Form.Item>
        <Form.Item label={T.operlog.operTime} name="range">
          <DatePicker.RangePicker placeholder={[T.operlog.beginTime, T.operlog.endTime]} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <PagedTable<OperLog>
        rowKey="operId"
        columns={columns}
        queryKey={['operlog', 'list', studyId ?? 'all']}
        filters={filters}
        fetchPage={(paging) => operLogApi.list({ ...paging, ...filters, studyId }).then((res) => res.data)}
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
