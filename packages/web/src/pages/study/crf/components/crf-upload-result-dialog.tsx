import { Alert, Modal, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { CrfIssue } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_CRF_TEXT } from '../../../../locales/study-crf.zh-CN';
import type { UploadOutcome } from '../upload-outcome';

const issueColumns: TableColumnsType<CrfIssue & { index: number }> = [
  {
    title: STUDY_CRF_TEXT.issuePath,
    dataIndex: 'path',
    width: 220,
    render: (path: string) => <code>{path || '—'}</code>,
  },
  { title: STUDY_CRF_TEXT.issueMessage, dataIndex: 'message' },
];

function Issues({ label, issues, type }: { label: string; issues: CrfIssue[]; type: 'error' | 'warning' }) {
  if (issues.length === 0) return null;
  return (
    <div style={{ marginTop: 8 }}>
      <Typography.Text strong type={type === 'error' ? 'danger' : 'warning'}>
        {label}（{issues.length}）
      </Typography.Text>
      <Table
        size="small"
        rowKey="index"
        columns={issueColumns}
        dataSource={issues.map((issue, index) => ({ ...issue, index }))}
        pagination={false}
        style={{ marginTop: 4 }}
      />
    </div>
  );
}

function Outcome({ outcome }: { outcome: UploadOutcome }) {
  return (
    <div style={{ marginBottom: 16 }}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 6 }}>
        {outcome.ok ? (
          <Tag color="success">{STUDY_CRF_TEXT.imported}</Tag>
        ) : (
          <Tag color="error">{STUDY_CRF_TEXT.notImported}</Tag>
        )}
        <Typography.Text strong>{outcome.fileName}</Typography.Text>
      </div>
      {outcome.ok && outcome.crfs.length > 0 && (
        <Typography.Paragraph style={{ marginBottom: 4 }}>
          {outcome.crfs.map((crf) => STUDY_CRF_TEXT.importedForm(crf.title, crf.version)).join('、')}
        </Typography.Paragraph>
      )}
      {!outcome.ok && (
        <Alert
          type="error"
          showIcon
          title={outcome.message || STUDY_CRF_TEXT.refused}
          description={outcome.errors.length > 0 ? STUDY_CRF_TEXT.errorsHint : undefined}
        />
      )}
      <Issues label={STUDY_CRF_TEXT.errors} issues={outcome.errors} type="error" />
      <Issues label={STUDY_CRF_TEXT.warnings} issues={outcome.warnings} type="warning" />
      {outcome.notes.length > 0 && (
        <div style={{ marginTop: 8 }}>
          <Typography.Text strong>{STUDY_CRF_TEXT.notes}</Typography.Text>
          <ul style={{ margin: '4px 0 0', paddingInlineStart: 20 }}>
            {outcome.notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** 上传结果: per file, what was imported, or why it was refused, with every finding of the linter. */
export function CrfUploadResultDialog({
  outcomes,
  onClose,
}: {
  outcomes: UploadOutcome[] | null;
  onClose: () => void;
}) {
  return (
    <Modal
      open={Boolean(outcomes)}
      title={STUDY_CRF_TEXT.resultTitle}
      onCancel={onClose}
      onOk={onClose}
      okText={COMMON_TEXT.ok}
      cancelButtonProps={{ style: { display: 'none' } }}
      width={840}
      destroyOnHidden
    >
      <div className="crf-issue-list">
        {(outcomes ?? []).map((outcome, index) => (
          <Outcome key={`${outcome.fileName}-${index}`} outcome={outcome} />
        ))}
      </div>
    </Modal>
  );
}
