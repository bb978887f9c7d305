import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Modal, Progress, Radio, Space, Table, Tag, Typography, Upload } from 'antd';
import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import {
  IMPORT_MODES,
  IMPORT_SUBMIT_TYPES,
  type ImportIssue,
  type ImportMode,
  type ImportPreview,
  type ImportResult,
  type ImportRowPlan,
} from '@ecrf/core';
import { dataImportApi } from '../../../../api/data-import.api';
import { queryKeys } from '../../../../api/query-keys';
import { DATA_IMPORT_TEXT } from '../../../../locales/data-import.zh-CN';
import { saveDownload } from '../../../../utils/download';

const L = DATA_IMPORT_TEXT;

function IssueText({ issue }: { issue: ImportIssue }) {
  return (
    <Typography.Text type="danger">
      {issue.column ? `${L.column}“${issue.column}”：` : ''}
      {issue.message}
    </Typography.Text>
  );
}

function SheetTable({ sheet, rows }: { sheet: string; rows: ImportRowPlan[] }) {
  return (
    <Table<ImportRowPlan>
      size="small"
      title={() => <strong>{sheet}</strong>}
      rowKey={(r) => `${r.sheet}-${r.row}`}
      dataSource={rows}
      pagination={rows.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
      columns={[
        { title: L.row, dataIndex: 'row', width: 64 },
        { title: L.patient, dataIndex: 'identificationCode', width: 140 },
        {
          title: L.action,
          width: 90,
          render: (_, r) =>
            r.errors.length > 0 ? (
              <Tag color="red">{L.error}</Tag>
            ) : (
              <Tag color={r.action === 'create' ? 'green' : r.action === 'update' ? 'blue' : 'default'}>
                {L.actions[r.action]}
              </Tag>
            ),
        },
        {
          title: L.changes,
          render: (_, r) =>
            r.errors.length > 0 ? (
              <Space direction="vertical" size={0}>
                {r.errors.map((e, i) => (
                  <IssueText key={i} issue={e} />
                ))}
              </Space>
            ) : (
              <Space direction="vertical" size={0}>
                {r.changes.map((c) => (
                  <span key={c.item}>
                    {c.title}：{c.old || L.blank} → {c.new || L.blank}
                  </span>
                ))}
              </Space>
            ),
        },
      ]}
    />
  );
}

function PreviewView({ preview }: { preview: ImportPreview }) {
  const sheets = [...new Set(preview.rows.map((r) => r.sheet))];
  const s = preview.summary;
  return (
    <Space direction="vertical" style={{ width: '100%' }} aria-label={L.previewTitle}>
      <Alert
        type={s.errors > 0 ? 'warning' : 'success'}
        showIcon
        message={L.summary(s.rows, s.creates, s.updates, s.unchanged, s.errors)}
        description={s.errors > 0 ? L.validPatients(s.validPatients, s.patients) : L.nothingWritten}
      />
      {preview.sheetErrors.length > 0 && (
        <Alert
          type="error"
          message={L.sheetErrors}
          description={
            <Space direction="vertical" size={0}>
              {preview.sheetErrors.map((e, i) => (
                <span key={i}>
                  {e.sheet}：<IssueText issue={e} />
                </span>
              ))}
            </Space>
          }
        />
      )}
      {sheets.map((sheet) => (
        <SheetTable key={sheet} sheet={sheet} rows={preview.rows.filter((r) => r.sheet === sheet)} />
      ))}
      {preview.truncated && <Typography.Text type="secondary">{L.truncated}</Typography.Text>}
    </Space>
  );
}

function ResultView({ result }: { result: ImportResult }) {
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Alert
        type={result.errors.length > 0 ? 'warning' : 'success'}
        showIcon
        message={L.result(result.importedPatients, result.createdRecords, result.updatedRecords, result.values)}
        description={result.skippedPatients > 0 ? L.skipped(result.skippedPatients) : undefined}
      />
      {result.errors.map((e, i) => (
        <div key={i}>
          {e.sheet}
          {e.row ? ` ${L.rowN(e.row)}` : ''}：<IssueText issue={e} />
        </div>
      ))}
    </Space>
  );
}

/**
 * Rendered only while open, so each opening starts empty.
 *
 * 导入 (platform §7 Studies → Import, SRCH-06): download the template, choose a workbook, 预览 shows what would be
 * created or changed and every error before anything is written, then 确认导入 按患者导入 or 整体导入, 保存 or 提交.
 */
export function ImportDialog({ studyId, open, onClose }: { studyId: number; open: boolean; onClose: () => void }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [submitType, setSubmitType] = useState<0 | 1>(0);
  const [mode, setMode] = useState<ImportMode>('patient');
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [job, setJob] = useState<{ jobId: string; progress: number; message: string | null } | null>(null);
  const [busy, setBusy] = useState(false);

  // A large file runs as a job: its progress is read until it ends.
  useEffect(() => {
    if (!job) return;
    const timer = setInterval(() => {
      void dataImportApi
        .job(job.jobId)
        .then((res) => {
          const view = res.data as typeof res.data & { result?: ImportResult | null };
          if (view.state === 'done' && view.result) {
            setResult(view.result);
            setJob(null);
            void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
          } else if (view.state === 'failed' || view.state === 'cancelled') {
            void message.error(view.error ?? L.failed);
            setJob(null);
          } else setJob({ jobId: job.jobId, progress: view.progress, message: view.message });
        })
        .catch(() => undefined);
    }, 1_000);
    return () => clearInterval(timer);
  }, [job, message, queryClient]);

  const downloadTemplate = async () => {
    saveDownload(await dataImportApi.template(studyId), `数据导入模板-${studyId}.xlsx`);
  };

  const runPreview = async () => {
    if (!file) return;
    setBusy(true);
    setResult(null);
    try {
      setPreview((await dataImportApi.preview(studyId, file, submitType)).data);
    } finally {
      setBusy(false);
    }
  };

  const runImport = async () => {
    if (!file) return;
    setBusy(true);
    try {
      const res = await dataImportApi.run(studyId, file, submitType, mode);
      if (res.data.job) setJob({ jobId: res.data.job.jobId, progress: res.data.job.progress, message: null });
      if (res.data.result) {
        setResult(res.data.result);
        setPreview(null);
        void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
      }
      if (res.data.result && res.data.result.importedPatients === 0) void message.warning(res.msg);
      else void message.info(res.msg);
    } finally {
      setBusy(false);
    }
  };

  const canImport = Boolean(preview) && preview!.sheetErrors.length === 0 && !job;
  return (
    <Modal
      title={L.title}
      open={open}
      onCancel={onClose}
      width={960}
      destroyOnHidden
      footer={[
        <Button key="close" onClick={onClose}>
          {L.close}
        </Button>,
        <Button key="preview" disabled={!file || busy} loading={busy && !preview} onClick={() => void runPreview()}>
          {L.preview}
        </Button>,
        <Button
          key="import"
          type="primary"
          disabled={!canImport || busy}
          loading={busy && Boolean(preview)}
          onClick={() => void runImport()}
        >
          {L.confirm}
        </Button>,
      ]}
    >
      <Space direction="vertical" style={{ width: '100%' }} size="middle">
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {L.hint}
        </Typography.Paragraph>
        <Space wrap>
          <Button icon={<DownloadOutlined aria-hidden />} onClick={() => void downloadTemplate()}>
            {L.template}
          </Button>
          <Upload
            accept=".xlsx"
            maxCount={1}
            beforeUpload={(chosen) => {
              setFile(chosen);
              setPreview(null);
              setResult(null);
              return false;
            }}
            onRemove={() => {
              setFile(null);
              setPreview(null);
            }}
            fileList={file ? [{ uid: '1', name: file.name, status: 'done' }] : []}
          >
            <Button icon={<UploadOutlined aria-hidden />}>{L.chooseFile}</Button>
          </Upload>
        </Space>
        <Space wrap size="large">
          <Radio.Group
            aria-label={L.submitType}
            value={submitType}
            onChange={(e) => {
              setSubmitType(e.target.value as 0 | 1);
              setPreview(null);
            }}
            options={IMPORT_SUBMIT_TYPES.map((o) => ({ value: o.code, label: o.label }))}
          />
          <Radio.Group
            aria-label={L.mode}
            value={mode}
            onChange={(e) => setMode(e.target.value as ImportMode)}
            options={IMPORT_MODES.map((o) => ({ value: o.code, label: o.label }))}
          />
        </Space>
        {job && (
          <div>
            <Progress percent={job.progress} aria-label={L.progress} />
            <Typography.Text type="secondary">{job.message ?? L.running}</Typography.Text>
          </div>
        )}
        {result && <ResultView result={result} />}
        {preview && !result && <PreviewView preview={preview} />}
      </Space>
    </Modal>
  );
}
