import { useState } from 'react';
import { DownloadOutlined, HistoryOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Checkbox, Drawer, Form, InputNumber, Modal, Radio, Select, Table, Tag, Typography } from 'antd';
import {
  CODES_ONLY_FORMATS,
  EXPORT_FORMATS,
  EXPORT_STATES,
  MAX_DATE_SHIFT_DAYS,
  type ExportFormat,
  type ExportState,
  type SearchConditions,
} from '@ecrf/core';
import { exportApi, type ExportLogRow } from '../../../../api/export.api';
import { queryKeys } from '../../../../api/query-keys';
import { searchApi } from '../../../../api/search.api';
import { DATA_EXPORT_TEXT } from '../../../../locales/data-export.zh-CN';
import { useJobsDrawer } from '../../../../stores/jobs-drawer.store';
import { formatDate } from '../../../../utils/format-date';
import { TestDataTag } from '../../../../components/test-data-tag';
import { LIFECYCLE_TEXT } from '../../../../locales/lifecycle.zh-CN';

const t = DATA_EXPORT_TEXT;

interface ExportForm {
  scope: 'search' | 'study';
  format: ExportFormat;
  labels: boolean;
  identifiers: boolean;
  shift: boolean;
  dateShiftDays: number;
  crfIds: number[];
  stageIds: number[];
  states: ExportState[];
}

export interface ExportButtonProps {
  studyId: number;
  /** The conditions of the search last run on the page, or null before any. */
  conditions: SearchConditions | null;
  /** How many patients that search found, when known. */
  total: number | null;
  /** The caller holds 查看患者身份信息 (the search dictionary offers identifiers). */
  seesIdentifiers: boolean;
}

/**
 * 导出 on the retrieval page: a dialog of format, options, forms, stages and states that starts the export job
 * (v2 for the current search's patients, v3 for the whole study) and opens the 任务 drawer on its progress.
 */
export function ExportButton({ studyId, conditions, total, seesIdentifiers }: ExportButtonProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const showJobs = useJobsDrawer((s) => s.show);
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<ExportForm>();
  const crfsQuery = useQuery({
    queryKey: queryKeys.search.exportCrfs(studyId),
    enabled: open,
    queryFn: () => searchApi.exportCrfs(studyId).then((res) => res.data),
  });
  const crfs = crfsQuery.data ?? [];
  const stages = [...new Map(crfs.flatMap((c) => c.stages).map((s) => [s.stageId, s])).values()];

  const start = useMutation({
    mutationFn: (values: ExportForm) => {
      const body = {
        studyId,
        format: values.format,
        labels: values.labels && !CODES_ONLY_FORMATS[values.format],
        identifiers: seesIdentifiers && values.identifiers,
        dateShiftDays: values.shift ? values.dateShiftDays : null,
        crfIds: values.crfIds,
        stageIds: values.stageIds,
        states: values.states,
      };
      return values.scope === 'search' && conditions
        ? exportApi.searchResult({ ...body, conditions })
        : exportApi.study(body);
    },
    onSuccess: async () => {
      setOpen(false);
      void message.success(t.started);
      await queryClient.invalidateQueries({ queryKey: queryKeys.jobs.all() });
      showJobs();
    },
  });

  const initial: ExportForm = {
    scope: conditions ? 'search' : 'study',
    format: 'excel',
    labels: true,
    identifiers: false,
    shift: false,
    dateShiftDays: 30,
    crfIds: [],
    stageIds: [],
    states: ['saved', 'submitted'],
  };

  return (
    <>
      <Button type="primary" icon={<DownloadOutlined aria-hidden />} onClick={() => setOpen(true)}>
        {t.button}
      </Button>
      <ExportLogButton studyId={studyId} />
      <Modal
        title={t.title}
        open={open}
        onCancel={() => setOpen(false)}
        okText={t.submit}
        confirmLoading={start.isPending}
        onOk={() => form.submit()}
        destroyOnHidden
        width={640}
      >
        <Form<ExportForm>
          form={form}
          layout="vertical"
          initialValues={initial}
          onFinish={(values) => start.mutate(values)}
          onValuesChange={(changed: Partial<ExportForm>) => {
            // A format that writes codes only shows the codes chosen, not a choice it would not follow.
            if (changed.format && CODES_ONLY_FORMATS[changed.format]) form.setFieldsValue({ labels: false });
          }}
          className="export-dialog"
        >
          <Form.Item name="scope" label={t.scope}>
            <Radio.Group>
              <Radio value="search" disabled={!conditions}>
                {t.scopeSearch(total)}
              </Radio>
              <Radio value="study">{t.scopeStudy}</Radio>
            </Radio.Group>
          </Form.Item>
          {!conditions && <Typography.Paragraph type="secondary">{t.needSearch}</Typography.Paragraph>}
          <Form.Item name="format" label={t.format}>
            <Radio.Group className="export-formats" vertical>
              {EXPORT_FORMATS.map((f) => (
                <Radio key={f.code} value={f.code}>
                  {f.label}
                </Radio>
              ))}
            </Radio.Group>
          </Form.Item>
          <Form.Item noStyle shouldUpdate={(a, b) => a.format !== b.format}>
            {({ getFieldValue }) => {
              const codesOnly = CODES_ONLY_FORMATS[getFieldValue('format') as ExportFormat];
              return (
                <Form.Item name="labels" label={t.values} extra={codesOnly}>
                  <Radio.Group
                    optionType="button"
                    disabled={Boolean(codesOnly)}
                    options={[
                      { value: true, label: t.labels },
                      { value: false, label: t.codes },
                    ]}
                  />
                </Form.Item>
              );
            }}
          </Form.Item>
          <Form.Item
            name="identifiers"
            valuePropName="checked"
            extra={seesIdentifiers ? null : t.noIdentifierPermission}
          >
            <Checkbox disabled={!seesIdentifiers}>{t.identifiers}</Checkbox>
          </Form.Item>
          <Form.Item noStyle shouldUpdate={(a, b) => a.shift !== b.shift || a.identifiers !== b.identifiers}>
            {({ getFieldValue }) => (
              <>
                <Form.Item name="shift" valuePropName="checked" style={{ marginBottom: 8 }}>
                  <Checkbox disabled={Boolean(getFieldValue('identifiers'))}>{t.dateShift}</Checkbox>
                </Form.Item>
                {getFieldValue('shift') && !getFieldValue('identifiers') && (
                  <Form.Item name="dateShiftDays" label={t.dateShiftDays}>
                    <InputNumber min={1} max={MAX_DATE_SHIFT_DAYS} precision={0} aria-label={t.dateShiftDays} />
                  </Form.Item>
                )}
              </>
            )}
          </Form.Item>
          <Form.Item noStyle shouldUpdate={(a, b) => a.identifiers !== b.identifiers || a.crfIds !== b.crfIds}>
            {({ getFieldValue }) => {
              // A de-identified export: the items flagged as identifiers it leaves out, by form.
              const chosen = getFieldValue('crfIds') as number[];
              const items = crfs
                .filter((c) => chosen.length === 0 || chosen.includes(c.crfId))
                .filter((c) => c.identifierItems.length > 0)
                .map((c) => `${c.title}：${c.identifierItems.join('、')}`);
              return !getFieldValue('identifiers') && items.length > 0 ? (
                <Typography.Paragraph type="secondary" className="export-identifier-items">
                  {t.identifierItems(items.join('；'))}
                </Typography.Paragraph>
              ) : null;
            }}
          </Form.Item>
          <Form.Item name="crfIds" label={t.forms}>
            <Select
              mode="multiple"
              allowClear
              placeholder={t.allForms}
              aria-label={t.forms}
              loading={crfsQuery.isLoading}
              options={crfs.map((c) => ({ value: c.crfId, label: c.title }))}
              optionFilterProp="label"
            />
          </Form.Item>
          <Form.Item name="stageIds" label={t.stages}>
            <Select
              mode="multiple"
              allowClear
              placeholder={t.allStages}
              aria-label={t.stages}
              options={stages.map((s) => ({ value: s.stageId, label: s.name }))}
              optionFilterProp="label"
            />
          </Form.Item>
          <Form.Item
            name="states"
            label={t.states}
            // A validator rather than `required`: antd would put aria-required on the checkbox group's div.
            rules={[
              {
                validator: (_, v: ExportState[] | undefined) =>
                  v && v.length > 0 ? Promise.resolve() : Promise.reject(new Error(t.statesRequired)),
              },
            ]}
          >
            <Checkbox.Group options={EXPORT_STATES.map((s) => ({ value: s.code, label: s.label }))} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}

const PAGE_SIZE = 10;
const formatLabel = (code: string) => EXPORT_FORMATS.find((f) => f.code === code)?.label.split('（')[0] ?? code;

/** 导出记录: the study's exports (all of them for its managers, one's own for everyone else). */
function ExportLogButton({ studyId }: { studyId: number }) {
  const [open, setOpen] = useState(false);
  const [pageNum, setPageNum] = useState(1);
  const paging = { pageNum, pageSize: PAGE_SIZE };
  const log = useQuery({
    queryKey: queryKeys.search.exportLog(studyId, paging),
    enabled: open,
    queryFn: () => exportApi.log(studyId, paging).then((res) => res.data),
  });
  return (
    <>
      <Button icon={<HistoryOutlined aria-hidden />} onClick={() => setOpen(true)}>
        {t.log}
      </Button>
      <Drawer title={t.logTitle} open={open} onClose={() => setOpen(false)} size={760}>
        <Table<ExportLogRow>
          rowKey="id"
          size="small"
          loading={log.isLoading}
          dataSource={log.data?.list ?? []}
          locale={{ emptyText: t.logEmpty }}
          pagination={{
            current: pageNum,
            pageSize: PAGE_SIZE,
            total: log.data?.total ?? 0,
            onChange: setPageNum,
            showSizeChanger: false,
          }}
          columns={[
            { title: t.columns.time, dataIndex: 'createTime', render: (v: string) => formatDate(v), width: 160 },
            { title: t.columns.user, dataIndex: 'userName' },
            {
              title: t.columns.format,
              dataIndex: 'format',
              render: (format: string, row) => (
                <>
                  {formatLabel(format)} {row.test && <TestDataTag tip={LIFECYCLE_TEXT.testExportTip} />}
                </>
              ),
            },
            {
              title: t.columns.scope,
              render: (_, row) => t.scopes[row.options.scope?.kind ?? 'study'] ?? row.api,
            },
            { title: t.columns.patients, dataIndex: 'patientCount' },
            { title: t.columns.rows, dataIndex: 'rowCount' },
            {
              title: t.columns.state,
              dataIndex: 'state',
              render: (v: string) => (
                <Tag color={v === 'done' ? 'success' : v === 'failed' ? 'error' : 'default'}>{t.states_[v] ?? v}</Tag>
              ),
            },
            {
              title: t.columns.hash,
              dataIndex: 'sha256',
              render: (v: string | null) =>
                v ? (
                  <Typography.Text copyable={{ text: v }} code>
                    {v.slice(0, 12)}…
                  </Typography.Text>
                ) : null,
            },
          ]}
        />
      </Drawer>
    </>
  );
}
