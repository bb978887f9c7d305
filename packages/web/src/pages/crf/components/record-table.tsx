import { useState } from 'react';
import { DeleteOutlined, FolderOpenOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Form, Input, Modal, Table, Tag } from 'antd';
import type { CrfDataRow } from '../../../api/crf.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { formStateMeta } from '../crf-menu';
import { FormStateIcon } from './crf-sidebar';

const t = CRF_PAGE_TEXT;

export interface RecordTableProps {
  rows: CrfDataRow[];
  loading: boolean;
  /** The open record; null for a new one not saved yet. */
  currentId: number | null;
  creating: boolean;
  canAdd: boolean;
  canRemove: boolean;
  onAdd: () => void;
  onOpen: (crfDataRecordId: number) => void;
  onRemove: (crfDataRecordId: number, reason: string) => Promise<void>;
  /** A phone: the records as stacked cards instead of a six-column table. */
  phone?: boolean;
}

/** A repeatable form's records (CRF-14, CRF-24) with 新增, 打开 and 删除 (a reason is required, CRF-25). */
export function RecordTable({
  rows,
  loading,
  currentId,
  creating,
  canAdd,
  canRemove,
  onAdd,
  onOpen,
  onRemove,
  phone = false,
}: RecordTableProps) {
  const { message } = App.useApp();
  const [removing, setRemoving] = useState<CrfDataRow | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const confirmRemove = async () => {
    if (!removing) return;
    if (!reason.trim()) {
      setError(t.removeReasonRequired);
      return;
    }
    setBusy(true);
    try {
      await onRemove(removing.crfDataRecordId, reason.trim());
      void message.success(t.removed);
      setRemoving(null);
    } catch {
      // The request wrapper has shown why.
    } finally {
      setBusy(false);
    }
  };

  const openButton = (row: CrfDataRow) => (
    <Button
      size="small"
      type="link"
      icon={<FolderOpenOutlined />}
      disabled={row.crfDataRecordId === currentId}
      onClick={() => onOpen(row.crfDataRecordId)}
    >
      {t.openRecord}
    </Button>
  );
  const removeButton = (row: CrfDataRow) =>
    canRemove && (
      <Button
        size="small"
        type="link"
        danger
        icon={<DeleteOutlined />}
        onClick={() => {
          setReason('');
          setError(null);
          setRemoving(row);
        }}
      >
        {t.removeRecord}
      </Button>
    );

  return (
    <div className="crf-records">
      <div className="crf-records-head">
        <span className="crf-records-title">{t.records}</span>
        {canAdd && (
          <Button size="small" type="primary" icon={<PlusOutlined />} onClick={onAdd} disabled={creating}>
            {t.newRecord}
          </Button>
        )}
      </div>
      {phone ? (
        <ul className="crf-record-cards" aria-label={t.records}>
          {rows.map((row, index) => (
            <li
              key={row.crfDataRecordId}
              className={`crf-record-card${row.crfDataRecordId === currentId ? ' crf-record-card-current' : ''}`}
            >
              <div className="crf-record-card-head">
                <span className="crf-record-card-no">{t.recordNo(index + 1)}</span>
                <span className="crf-record-state">
                  <FormStateIcon state={row.state} /> {formStateMeta(row.state).label}
                </span>
                <span className="crf-record-card-time">{formatDate(row.updateTime)}</span>
              </div>
              {row.summary && <div className="crf-record-card-summary">{row.summary}</div>}
              <div className="crf-record-card-actions">
                <span className="crf-record-card-creater">{row.creater}</span>
                {openButton(row)}
                {removeButton(row)}
              </div>
            </li>
          ))}
          {rows.length === 0 && !loading && <li className="crf-record-card-empty">{t.noRecords}</li>}
          {creating && (
            <li className="crf-record-card-new">
              <Tag color="blue">{t.newRecordTag}</Tag>
            </li>
          )}
        </ul>
      ) : (
        <Table<CrfDataRow>
          size="small"
          rowKey="crfDataRecordId"
          loading={loading}
          pagination={false}
          dataSource={rows}
          rowClassName={(row) => (row.crfDataRecordId === currentId ? 'crf-record-current' : '')}
          locale={{ emptyText: t.noRecords }}
          footer={creating ? () => <Tag color="blue">{t.newRecordTag}</Tag> : undefined}
          columns={[
            {
              title: COMMON_TEXT.index,
              key: 'no',
              width: 70,
              render: (_: unknown, _row, index) => t.recordNo(index + 1),
            },
            {
              title: t.recordState,
              dataIndex: 'state',
              width: 110,
              render: (state: number) => (
                <span className="crf-record-state">
                  <FormStateIcon state={state} /> {formStateMeta(state).label}
                </span>
              ),
            },
            { title: t.recordSummary, dataIndex: 'summary', ellipsis: true },
            { title: t.recordCreater, dataIndex: 'creater', width: 120 },
            { title: t.recordUpdated, dataIndex: 'updateTime', width: 170, render: (v: string) => formatDate(v) },
            {
              title: COMMON_TEXT.actions,
              key: 'actions',
              width: 150,
              render: (_: unknown, row) => (
                <>
                  {openButton(row)}
                  {removeButton(row)}
                </>
              ),
            },
          ]}
        />
      )}
      <Modal
        open={removing !== null}
        title={t.removeTitle}
        onCancel={() => setRemoving(null)}
        onOk={() => void confirmRemove()}
        okButtonProps={{ danger: true, loading: busy }}
        okText={COMMON_TEXT.ok}
        cancelText={COMMON_TEXT.cancel}
        destroyOnHidden
      >
        <p className="crf-dialog-hint">{t.removeHint}</p>
        <Form layout="vertical">
          <Form.Item label={t.removeReason} required validateStatus={error ? 'error' : undefined} help={error}>
            <Input.TextArea
              aria-label={t.removeReason}
              value={reason}
              maxLength={500}
              autoSize={{ minRows: 2, maxRows: 5 }}
              onChange={(event) => {
                setReason(event.target.value);
                if (error && event.target.value.trim()) setError(null);
              }}
            />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}
