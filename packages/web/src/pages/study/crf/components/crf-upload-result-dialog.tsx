import { Alert, Modal, Table, Tag, Typography, type TableColumnsType } from 'antd';
import type { CrfIssue } from '../../../../api/study.api';
import { T } from '../../../../locales/zh-CN';
import type { UploadOutcome } from '../upload-outcome';

const issueColumns: TableColumnsType<CrfIssue & { index: number }> = [
  { title: T.studyCrf.issuePath, dataIndex: 'path', width: 220, render: (path: string) => <code>{path || '—'}</code> },
  { title: T.studyCrf.issueMessage, dataIndex: 'message' },
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
          <Tag color="success">{T.studyCrf.imported}</Tag>
        ) : (
          <Tag color="error">{T.studyCrf.notImported}</Tag>
        )}
        <Typography.Text strong>{outcome.fileName}</Typography.Text>
      </div>
      {outcome.ok && outcome.crfs.length > 0 && (
        <Typography.Paragraph style={{ marginBottom: 4 }}>
          {outcome.crfs.map((crf) => T.studyCrf.importedForm(crf.title, crf.version)).join('、')}
        </Typography.Paragraph>
      )}
      {!outcome.ok && (
        <Alert
          type="error"
          showIcon
          title={outcome.message || T.studyCrf.refused}
          description={outcome.errors.length > 0 ? T.studyCrf.errorsHint : undefined}
        />
      )}
      <Issues label={T.studyCrf.errors} issues={outcome.errors} type="error" />
      <Issues label={T.studyCrf.warnings} issues={outcome.warnings} type="warning" />
      {outcome.notes.length > 0 && (
        <div style={{ marginTop: 8 }}>
          <Typography.Text strong>{T.studyCrf.notes}</Typography.Text>
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
      title={T.studyCrf.resultTitle}
      onCancel={onClose}
      onOk={onClose}
      okText={T.common.ok}
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
