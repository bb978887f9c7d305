import { useState } from 'react';
import { Alert, Button, Form, Input, Modal, Table, Tag, Typography } from 'antd';
import type { CrfNode } from '@ecrf/core';
import type { StaleRecord } from '../../../api/crf.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { formatValue, itemTitle } from '../crf-values';
import { reasonError, type DraftReview, type FormValues } from '../save-flow';

const t = CRF_PAGE_TEXT;

/** A submitted form changed: the reason for the change (修改原因) is asked before sending. */
export function ReasonDialog({
  open,
  items,
  onOk,
  onCancel,
}: {
  open: boolean;
  /** Titles of the items being changed. */
  items: string[];
  onOk: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const confirm = () => {
    const problem = reasonError(reason);
    setError(problem);
    if (!problem) onOk(reason.trim());
  };
  return (
    <Modal
      open={open}
      title={t.reasonTitle}
      onCancel={onCancel}
      onOk={confirm}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      destroyOnHidden
      mask={{ closable: false }}
      afterClose={() => {
        setReason('');
        setError(null);
      }}
    >
      <p className="crf-dialog-hint">{t.reasonHint}</p>
      {items.length > 0 && (
        <div className="crf-reason-items">
          <span>{t.reasonItems}：</span>
          {items.map((title) => (
            <Tag key={title}>{title}</Tag>
          ))}
        </div>
      )}
      <Form layout="vertical">
        <Form.Item label={t.reasonLabel} required validateStatus={error ? 'error' : undefined} help={error}>
          <Input.TextArea
            aria-label={t.reasonLabel}
            value={reason}
            maxLength={500}
            showCount
            autoSize={{ minRows: 3, maxRows: 6 }}
            onChange={(event) => {
              setReason(event.target.value);
              if (error) setError(reasonError(event.target.value));
            }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

interface ConflictRow {
  name: string;
  title: string;
  theirs: string;
  mine: string;
}

/**
 * 409: someone else saved first. Nothing is overwritten: the dialog lists the items that differ
 * with both values, the user's own values stay copyable, and 刷新 reloads the record (the user's
 * edits are kept as a draft and offered back).
 */
export function ConflictDialog({
  stale,
  mine,
  edited = [],
  nodes,
  onRefresh,
  onCancel,
}: {
  stale: StaleRecord | null;
  mine: FormValues;
  /** The items this user changed (the others differ because the colleague changed them). */
  edited?: string[];
  nodes: ReadonlyMap<string, CrfNode>;
  onRefresh: () => void;
  onCancel: () => void;
}) {
  const rows: ConflictRow[] = (stale?.changedItems ?? []).map((name) => ({
    name,
    title: itemTitle(nodes, name),
    theirs: formatValue(nodes.get(name), stale?.current.values[name], stale?.current.values),
    mine: formatValue(nodes.get(name), mine[name], mine),
  }));
  return (
    <Modal
      open={stale !== null}
      title={t.conflictTitle}
      width={760}
      onCancel={onCancel}
      mask={{ closable: false }}
      footer={[
        <Button key="cancel" onClick={onCancel}>
          {COMMON_TEXT.cancel}
        </Button>,
        <Button key="refresh" type="primary" onClick={onRefresh}>
          {t.refresh}
        </Button>,
      ]}
    >
      <Alert type="warning" showIcon title={t.conflictHint} />
      {stale && <p className="crf-dialog-hint">{t.conflictBy(formatDate(stale.current.updateTime))}</p>}
      <Table<ConflictRow>
        size="small"
        rowKey="name"
        pagination={false}
        dataSource={rows}
        columns={[
          { title: t.conflictItem, dataIndex: 'title', width: 180 },
          { title: t.conflictTheirs, dataIndex: 'theirs' },
          {
            title: t.conflictMine,
            dataIndex: 'mine',
            render: (text: string, row: ConflictRow) => (
              <>
                {text ? <Typography.Text copyable>{text}</Typography.Text> : t.empty}
                {edited.includes(row.name) && (
                  <Tag color="orange" style={{ marginLeft: 8 }}>
                    {t.conflictEdited}
                  </Tag>
                )}
              </>
            ),
          },
        ]}
      />
    </Modal>
  );
}

/** A draft of unsaved values was found: restore it onto the record, or let it go. */
export function DraftDialog({
  review,
  savedAt,
  nodes,
  onRestore,
  onDiscard,
}: {
  review: DraftReview | null;
  savedAt: string;
  nodes: ReadonlyMap<string, CrfNode>;
  onRestore: () => void;
  onDiscard: () => void;
}) {
  return (
    <Modal
      open={review !== null}
      title={t.draftTitle}
      closable={false}
      mask={{ closable: false }}
      keyboard={false}
      footer={[
        <Button key="discard" danger onClick={onDiscard}>
          {t.discard}
        </Button>,
        <Button key="restore" type="primary" onClick={onRestore}>
          {t.restore}
        </Button>,
      ]}
    >
      {review && (
        <>
          <p>{t.draftHint(formatDate(savedAt), review.items.length)}</p>
          <div className="crf-reason-items">
            <span>{t.draftItems}：</span>
            {review.items.map((name) => (
              <Tag key={name}>{itemTitle(nodes, name)}</Tag>
            ))}
          </div>
          {review.conflicts.length > 0 && (
            <Alert
              type="warning"
              showIcon
              style={{ marginTop: 12 }}
              title={t.draftConflicts}
              description={review.conflicts.map((name) => itemTitle(nodes, name)).join('、')}
            />
          )}
        </>
      )}
    </Modal>
  );
}
