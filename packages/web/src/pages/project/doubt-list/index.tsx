import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { AimOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, DatePicker, Form, Grid, Input, Select, Space, Tabs, type TableColumnsType } from 'antd';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { DOUBT_STATE, DOUBT_TYPE, doubtApi, type Doubt, type DoubtFilter } from '../../../api/doubt.api';
import { FileLinks } from '../../../components/audit-change';
import { INDEX_COLUMN_WIDTH, PagedTable } from '../../../components/paged-table';
import { useContainerWidth } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DOUBT_TEXT } from '../../../locales/doubt.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { DoubtDialog, DoubtStateTag, DoubtTypeTag, type DoubtDialogMode } from '../../crf/components/doubt-dialog';
import { useProjectStudy } from '../use-project-study';
import { locateUrl, toDoubtFilter, type DoubtFilterValues } from './doubt-filters';
import { FilterButtons } from '../../../components/filter-buttons';
import { QUALITY_TEXT } from '../../../locales/quality.zh-CN';
import { QualityPanel } from '../quality/quality-panel';
import { CODING_TEXT } from '../../../locales/coding.zh-CN';
import { CodingPanel } from '../coding/coding-panel';
import { DOUBLE_ENTRY_TEXT } from '../../../locales/double-entry.zh-CN';
import { DoubleEntryListPanel } from '../double-entry/double-entry-panel';
import './doubt-list.css';

const t = DOUBT_TEXT;

type Layout = 'wide' | 'medium' | 'narrow';
type Tab = 'doubts' | 'quality' | 'coding' | 'doubleEntry';
/** 质疑内容 takes the room left, never less than this. */
const CONTENT_MIN_WIDTH = 160;

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
  const [tab, setTab] = useState<Tab>('doubts');

  const screens = Grid.useBreakpoint();
  // All columns where they fit beside the side menu, fewer (stacked) where not, one summary column on phones and
  // tablets. Until the list's width is measured, the window's breakpoints guess.
  const [container, available] = useContainerWidth();
  const guess: Layout = screens.lg === false ? 'narrow' : screens.xxl === false ? 'medium' : 'wide';

  const itemCell = (row: Doubt) => (
    <>
      {row.groupName && (
        <div className="doubt-list-group">{t.groupRow(row.groupTitle ?? row.groupName, row.groupIndex ?? 0)}</div>
      )}
      <span title={row.itemName}>{row.itemTitle ?? row.itemName}</span>
    </>
  );
  const valueCell = (row: Doubt) =>
    row.itemFiles && row.itemFiles.length > 0 ? <FileLinks files={row.itemFiles} /> : (row.itemValueText ?? '');
  const actionsCell = (row: Doubt, layout: Layout) => (
    <Space size={0} orientation={layout === 'narrow' ? 'vertical' : 'horizontal'}>
      <Button
        type="link"
        size="small"
        icon={<EyeOutlined aria-hidden />}
        onClick={() => setMode({ kind: 'history', doubtId: row.doubtId })}
      >
        {t.view}
      </Button>
      <Button type="link" size="small" icon={<AimOutlined aria-hidden />} onClick={() => void navigate(locateUrl(row))}>
        {t.locate}
      </Button>
    </Space>
  );
  const actions = (layout: Layout): TableColumnsType<Doubt>[number] => ({
    title: COMMON_TEXT.actions,
    key: 'actions',
    fixed: 'right',
    width: layout === 'narrow' ? 84 : 140,
    render: (_: unknown, row) => actionsCell(row, layout),
  });
  const stateTags = (row: Doubt) => (
    <Space size={4} wrap>
      <DoubtStateTag state={row.optionType} />
      <DoubtTypeTag type={row.doubtType} />
    </Space>
  );

  const columnsOf = (layout: Layout): TableColumnsType<Doubt> =>
    layout === 'narrow'
      ? [
          {
            title: t.listTitle,
            key: 'summary',
            render: (_: unknown, row) => (
              <div className="doubt-list-card">
                <div className="doubt-list-card-item">
                  {itemCell(row)}
                  <span className="doubt-list-card-value">{valueCell(row)}</span>
                </div>
                <div className="doubt-list-card-meta">
                  {[row.identificationCode, row.subjectName, row.stageName, row.crfTitle].filter(Boolean).join(' · ')}
                </div>
                <div className="doubt-list-card-content">{row.doubtDescription}</div>
                <div className="doubt-list-card-meta">
                  {stateTags(row)} {row.userName} {formatDate(row.createDate)}
                </div>
              </div>
            ),
          },
          actions(layout),
        ]
      : layout === 'medium'
        ? [
            {
              title: t.patient,
              key: 'patient',
              width: 104,
              render: (_: unknown, row) => (
                <>
                  <div>{row.identificationCode}</div>
                  <div className="doubt-list-sub">{row.subjectName}</div>
                </>
              ),
            },
            {
              title: t.form,
              key: 'form',
              width: 112,
              render: (_: unknown, row) => (
                <>
                  <div>{row.crfTitle}</div>
                  <div className="doubt-list-sub">{row.stageName}</div>
                </>
              ),
            },
            { title: t.item, key: 'item', width: 120, render: (_: unknown, row) => itemCell(row) },
            { title: t.itemValue, key: 'itemValue', width: 110, render: (_: unknown, row) => valueCell(row) },
            { title: t.content, dataIndex: 'doubtDescription', ellipsis: true },
            { title: t.status, key: 'state', width: 96, render: (_: unknown, row) => stateTags(row) },
            actions(layout),
          ]
        : [
            { title: t.code, dataIndex: 'identificationCode', width: 96 },
            { title: t.patientName, dataIndex: 'subjectName', width: 80 },
            { title: t.stage, dataIndex: 'stageName', width: 80, render: (value?: string) => value || '—' },
            { title: t.form, dataIndex: 'crfTitle', width: 110 },
            { title: t.item, key: 'item', width: 140, render: (_: unknown, row) => itemCell(row) },
            { title: t.itemValue, key: 'itemValue', width: 120, render: (_: unknown, row) => valueCell(row) },
            { title: t.content, dataIndex: 'doubtDescription', ellipsis: true },
            {
              title: t.status,
              dataIndex: 'optionType',
              width: 76,
              render: (value: number) => <DoubtStateTag state={value} />,
            },
            {
              title: t.type,
              dataIndex: 'doubtType',
              width: 70,
              render: (value: number) => <DoubtTypeTag type={value} />,
            },
            { title: t.user, dataIndex: 'userName', width: 150, ellipsis: true },
            { title: t.time, dataIndex: 'createDate', width: 160, render: (value: string) => formatDate(value) },
            actions(layout),
          ];
  // The width a layout needs: its columns, 质疑内容 at least CONTENT_MIN_WIDTH, and 序号 beside the tables.
  const widthOf = (layout: Layout) =>
    columnsOf(layout).reduce(
      (sum, column) => sum + (typeof column.width === 'number' ? column.width : CONTENT_MIN_WIDTH),
      0,
    ) + (layout === 'narrow' ? 0 : INDEX_COLUMN_WIDTH);
  const layout: Layout =
    available <= 0 ? guess : ((['wide', 'medium'] as const).find((l) => widthOf(l) <= available) ?? 'narrow');
  const columns = columnsOf(layout);

  if (studyId === null) return null;

  // 数据核查 (issue 37) sits beside the queries it raises: a tab for members holding its key. 医学编码 (issue 37), a
  // data manager's review of the verbatims, is a tab here too, for members holding its key (no menu of its own).
  // 双份录入 (issue 37): the pairs to reconcile, for members holding 双录入核对.
  const tabs =
    can('business.quality') || can('business.coding') || can('business.doubleEntry.reconcile') ? (
      <Tabs
        activeKey={tab}
        onChange={(key) => setTab(key as Tab)}
        items={[
          { key: 'doubts', label: QUALITY_TEXT.doubtsTab },
          ...(can('business.quality') ? [{ key: 'quality', label: QUALITY_TEXT.tab }] : []),
          ...(can('business.coding') ? [{ key: 'coding', label: CODING_TEXT.tab }] : []),
          ...(can('business.doubleEntry.reconcile') ? [{ key: 'doubleEntry', label: DOUBLE_ENTRY_TEXT.tab }] : []),
        ]}
      />
    ) : null;
  if (tabs && tab === 'coding') {
    return (
      <div className="page-card">
        <h2 className="page-title">{t.listTitle}</h2>
        {tabs}
        <CodingPanel studyId={studyId} canApprove={can('business.coding.approve')} />
      </div>
    );
  }
  if (tabs && tab === 'doubleEntry') {
    return (
      <div className="page-card">
        <h2 className="page-title">{t.listTitle}</h2>
        {tabs}
        <DoubleEntryListPanel studyId={studyId} />
      </div>
    );
  }
  if (tabs && tab === 'quality') {
    return (
      <div className="page-card">
        <h2 className="page-title">{t.listTitle}</h2>
        {tabs}
        <QualityPanel studyId={studyId} canRaise={can('study.doubt.open')} />
      </div>
    );
  }

  return (
    <div className="page-card">
      <h2 className="page-title">{t.listTitle}</h2>
      {tabs}
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
          <Select
            allowClear
            options={STATE_OPTIONS}
            placeholder={COMMON_TEXT.selectPlaceholder}
            style={{ width: 110 }}
          />
        </Form.Item>
        <Form.Item label={t.type} name="doubtType">
          <Select
            allowClear
            options={TYPE_OPTIONS}
            placeholder={COMMON_TEXT.selectPlaceholder}
            style={{ width: 100 }}
          />
        </Form.Item>
        <Form.Item label={t.user} name="userName">
          <Input allowClear placeholder={t.user} style={{ width: 140 }} />
        </Form.Item>
        <Form.Item label={t.date} name="range">
          <DatePicker.RangePicker placeholder={[t.beginDate, t.endDate]} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div ref={container}>
        <PagedTable<Doubt>
          rowKey="doubtId"
          showIndex={layout !== 'narrow'}
          size="middle"
          tableLayout="fixed"
          // A card takes the width left beside the actions and wraps; the tables are laid out at their width.
          scroll={layout === 'narrow' ? {} : { x: widthOf(layout) }}
          columns={columns}
          queryKey={queryKeys.doubt.list(studyId)}
          filters={filters}
          fetchPage={(paging) => doubtApi.list({ ...paging, ...filters, studyId }).then((res) => res.data)}
        />
      </div>
      <DoubtDialog
        mode={mode}
        can={can}
        onChanged={() => {
          void queryClient.invalidateQueries({ queryKey: queryKeys.doubt.list(studyId) });
          void queryClient.invalidateQueries({ queryKey: queryKeys.doubt.counts() });
        }}
        onClose={() => setMode(null)}
      />
    </div>
  );
}
