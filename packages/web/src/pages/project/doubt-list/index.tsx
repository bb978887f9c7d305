import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { AimOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, DatePicker, Form, Input, Select, Space, type TableColumnsType } from 'antd';
import { useNavigate } from 'react-router';
import { DOUBT_STATE, DOUBT_TYPE, doubtApi, type Doubt, type DoubtFilter } from '../../../api/doubt.api';
import { FileLinks } from '../../../components/audit-change';
import { PagedTable } from '../../../components/paged-table';
import { T } from '../../../locales/zh-CN';
import { formatDate } from '../../../utils/format-date';
import { DoubtDialog, DoubtStateTag, DoubtTypeTag, type DoubtDialogMode } from '../../crf/components/doubt-dialog';
import { useProjectStudy } from '../use-project-study';
import { locateUrl, toDoubtFilter, type DoubtFilterValues } from './doubt-filters';
import { FilterButtons } from '../../../components/filter-buttons';

const t = T.doubt;

const STATE_OPTIONS = [DOUBT_STATE.open, DOUBT_STATE.replied, DOUBT_STATE.closed].map((value) => ({
  value,
  label: t.states[value],
}));
const TYPE_OPTIONS = [DOUBT_TYPE.system, DOUBT_TYPE.user].map((value) => ({ value, label: t.types[value] }));

/**
 * 质疑列表 (QRY-01): the study's queries with filters; 查看 opens the thread, 定位 the form. The
 * server words each query (item title in the record's CRF version, value with its unit, file names,
 * form and visit), so the list needs no form definitions.
 */
export default function DoubtListPage() {
  const { studyId, can } = useProjectStudy();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<DoubtFilterValues>();
  const [filters, setFilters] = useState<DoubtFilter>({});
  const [mode, setMode] = useState<DoubtDialogMode | null>(null);

  const columns: TableColumnsType<Doubt> = [
    { title: t.code, dataIndex: 'identificationCode', width: 110 },
    { title: t.patientName, dataIndex: 'subjectName', width: 100 },
    { title: t.stage, dataIndex: 'stageName', width: 90, render: (value?: string) => value || '—' },
    { title: t.form, dataIndex: 'crfTitle', width: 130 },
    {
      title: t.item,
      key: 'item',
      width: 180,
      render: (_: unknown, row) => (
        <>
          {row.groupName && (
            <div className="doubt-list-group">{t.groupRow(row.groupTitle ?? row.groupName, row.groupIndex ?? 0)}</div>
          )}
          <span title={row.itemName}>{row.itemTitle ?? row.itemName}</span>
        </>
      ),
    },
    {
      title: t.itemValue,
      key: 'itemValue',
      width: 160,
      render: (_: unknown, row) =>
        row.itemFiles && row.itemFiles.length > 0 ? <FileLinks files={row.itemFiles} /> : (row.itemValueText ?? ''),
    },
    { title: t.content, dataIndex: 'doubtDescription', ellipsis: true },
    { title: t.status, dataIndex: 'optionType', width: 90, render: (value: number) => <DoubtStateTag state={value} /> },
    { title: t.type, dataIndex: 'doubtType', width: 80, render: (value: number) => <DoubtTypeTag type={value} /> },
    { title: t.user, dataIndex: 'userName', width: 150 },
    { title: t.time, dataIndex: 'createDate', width: 170, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 150,
      render: (_: unknown, row) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            icon={<EyeOutlined aria-hidden />}
            onClick={() => setMode({ kind: 'history', doubtId: row.doubtId })}
          >
            {t.view}
          </Button>
          <Button
            type="link"
            size="small"
            icon={<AimOutlined aria-hidden />}
            onClick={() => void navigate(locateUrl(row))}
          >
            {t.locate}
          </Button>
        </Space>
      ),
    },
  ];

  if (studyId === null) return null;

  return (
    <div className="page-card">
      <h2 className="page-title">{t.listTitle}</h2>
      <Form
        form={filterForm}
        name="doubt-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(toDoubtFilter(values))}
      >
        <Form.Item label={t.code} name="identificationCode">
          <Input allowClear placeholder={t.code} style={{ width: 140 }} />
        </Form.Item>
        <Form.Item label={t.status} name="optionType">
          <Select allowClear options={STATE_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 110 }} />
        </Form.Item>
        <Form.Item label={t.type} name="doubtType">
          <Select allowClear options={TYPE_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 100 }} />
        </Form.Item>
        <Form.Item label={t.user} name="userName">
          <Input allowClear placeholder={t.user} style={{ width: 140 }} />
        </Form.Item>
        <Form.Item label={t.date} name="range">
          <DatePicker.RangePicker placeholder={[t.beginDate, t.endDate]} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <PagedTable<Doubt>
        rowKey="doubtId"
        columns={columns}
        queryKey={['doubt', 'list', studyId]}
        filters={filters}
        fetchPage={(paging) => doubtApi.list({ ...paging, ...filters, studyId }).then((res) => res.data)}
      />
      <DoubtDialog
        mode={mode}
        can={can}
        onChanged={() => {
          void queryClient.invalidateQueries({ queryKey: ['doubt', 'list', studyId] });
          void queryClient.invalidateQueries({ queryKey: ['doubt', 'count'] });
        }}
        onClose={() => setMode(null)}
      />
    </div>
  );
}
