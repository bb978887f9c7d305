import { Empty, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import {
  MESSAGE_CHANNEL_LABELS,
  MESSAGE_KIND_LABELS,
  MESSAGE_STATE_LABELS,
  type MessageRow,
  type MessageState,
} from '@ecrf/core';
import { MESSAGES_TEXT as t } from '../../../../locales/messages.zh-CN';
import { formatDate } from '../../../../utils/format-date';

const STATE_COLOR: Record<MessageState, string> = {
  queued: 'default',
  sending: 'processing',
  sent: 'blue',
  delivered: 'green',
  failed: 'red',
  skipped: 'orange',
};

/** A message's state; why it failed or was not sent shows on hover. */
export function MessageStateTag({ row }: { row: Pick<MessageRow, 'state' | 'error'> }) {
  const tag = <Tag color={STATE_COLOR[row.state]}>{MESSAGE_STATE_LABELS[row.state]}</Tag>;
  return row.error ? <Tooltip title={row.error}>{tag}</Tooltip> : tag;
}

/** The time a message last moved: delivered, sent, or when it may go. */
const timeOf = (row: MessageRow) => row.deliveredAt ?? row.sentAt ?? row.notBefore ?? row.createTime;

/** Messages as the report, the casebook's 提醒记录 and the outbox list them. */
export function MessageTable({
  rows,
  loading,
  pagination,
  withPatient = true,
  withContent = false,
  label,
}: {
  rows: MessageRow[];
  loading?: boolean;
  pagination?: TablePaginationConfig | false;
  withPatient?: boolean;
  withContent?: boolean;
  label: string;
}) {
  const columns: ColumnsType<MessageRow> = [
    ...(withPatient
      ? [
          { title: t.code, dataIndex: 'identificationCode', width: 110 },
          { title: t.name, dataIndex: 'subjectName', width: 80 },
        ]
      : []),
    { title: t.kind, dataIndex: 'kind', width: 140, render: (k: MessageRow['kind']) => MESSAGE_KIND_LABELS[k] },
    {
      title: t.channel,
      dataIndex: 'channel',
      width: 100,
      render: (c: MessageRow['channel']) => MESSAGE_CHANNEL_LABELS[c],
    },
    { title: t.recipient, dataIndex: 'recipient', width: 130 },
    ...(withContent ? [{ title: t.content, dataIndex: 'content', minWidth: 240 }] : []),
    {
      title: t.state,
      dataIndex: 'state',
      width: 100,
      render: (_: unknown, row: MessageRow) => <MessageStateTag row={row} />,
    },
    { title: t.time, key: 'time', width: 160, render: (_: unknown, row: MessageRow) => formatDate(timeOf(row)) },
    { title: t.attempts, dataIndex: 'attempts', width: 90, align: 'right' },
  ];
  return (
    <Table<MessageRow>
      size="middle"
      rowKey="id"
      aria-label={label}
      columns={columns}
      dataSource={rows}
      loading={loading}
      pagination={pagination}
      scroll={{ x: 900 }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t.empty} /> }}
    />
  );
}
