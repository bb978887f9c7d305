import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Drawer, Row, Select, Space, Statistic } from 'antd';
import { MESSAGE_KIND_LABELS, MESSAGE_KINDS, MESSAGE_STATE_LABELS, MESSAGE_STATES } from '@ecrf/core';
import { messageKeys, messagesApi, outboxRows, type MessageListFilter } from '../../../../api/messages.api';
import { MESSAGES_TEXT as t } from '../../../../locales/messages.zh-CN';
import { MessageTable } from './message-table';

const PAGE_SIZE = 20;

/**
 * 随访管理 · 患者提醒 (issue 38): the study's delivery report (总数, 已送达, 发送失败, 未发送, 已退订) over its messages,
 * newest first, filtered by state and kind. With the development provider a 开发发件箱 shows what would have gone.
 */
export function MessagesPanel({ studyId }: { studyId: number }) {
  const [filter, setFilter] = useState<MessageListFilter>({ pageNum: 1, pageSize: PAGE_SIZE });
  const report = useQuery({
    queryKey: messageKeys.report(studyId),
    queryFn: () => messagesApi.report(studyId).then((res) => res.data),
  });
  const list = useQuery({
    queryKey: messageKeys.list(studyId, filter),
    queryFn: () => messagesApi.list(studyId, filter).then((res) => res.data),
  });
  const r = report.data;
  const count = (state: string) => r?.byState[state] ?? 0;
  const cards: [string, number | undefined, string?][] = [
    [t.reportTotal, r?.total],
    [t.delivered, r && count('delivered'), '#389e0d'],
    [t.failed, r && count('failed'), '#cf1322'],
    [t.skipped, r && count('skipped'), '#d46b08'],
    [t.optedOut, r?.optedOut],
  ];

  return (
    <>
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
        {cards.map(([title, value, color]) => (
          <Col key={title} xs={12} md={8} xl={4}>
            <Card size="small" role="group" aria-label={title}>
              <Statistic
                title={title}
                value={value ?? '—'}
                styles={color && value ? { content: { color } } : undefined}
              />
            </Card>
          </Col>
        ))}
      </Row>
      <Space wrap style={{ marginBottom: 12 }}>
        <Select
          allowClear
          aria-label={t.state}
          placeholder={t.allStates}
          style={{ width: 140 }}
          value={filter.state}
          options={MESSAGE_STATES.map((s) => ({ value: s, label: MESSAGE_STATE_LABELS[s] }))}
          onChange={(state) => setFilter((f) => ({ ...f, state, pageNum: 1 }))}
        />
        <Select
          allowClear
          aria-label={t.kind}
          placeholder={t.allKinds}
          style={{ width: 180 }}
          value={filter.kind}
          options={MESSAGE_KINDS.map((k) => ({ value: k, label: MESSAGE_KIND_LABELS[k] }))}
          onChange={(kind) => setFilter((f) => ({ ...f, kind, pageNum: 1 }))}
        />
        <OutboxButton studyId={studyId} />
      </Space>
      <MessageTable
        label={t.listTitle}
        rows={list.data?.list ?? []}
        loading={list.isFetching}
        pagination={{
          current: filter.pageNum,
          pageSize: filter.pageSize,
          total: list.data?.total ?? 0,
          showSizeChanger: true,
          onChange: (pageNum, pageSize) => setFilter((f) => ({ ...f, pageNum, pageSize })),
        }}
      />
    </>
  );
}

/** 开发发件箱: shown only while the development provider answers (404 otherwise, asked quietly). */
function OutboxButton({ studyId }: { studyId: number }) {
  const [open, setOpen] = useState(false);
  const outbox = useQuery({
    queryKey: messageKeys.outbox(studyId),
    queryFn: () => messagesApi.outbox(studyId, { silent: true }).then((res) => outboxRows(res.data)),
    retry: false,
  });
  if (!outbox.data) return null;
  return (
    <>
      <Button
        onClick={() => {
          setOpen(true);
          void outbox.refetch();
        }}
      >
        {t.outbox}
      </Button>
      <Drawer title={t.outbox} open={open} onClose={() => setOpen(false)} size="large" destroyOnHidden>
        <Alert type="info" showIcon title={t.outboxHint} style={{ marginBottom: 12 }} />
        <MessageTable label={t.outbox} rows={outbox.data} withContent pagination={{ pageSize: 20 }} />
      </Drawer>
    </>
  );
}
