import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Descriptions, Form, Input, Modal, Space, Table, Tag, Typography } from 'antd';
import { FOLLOW_STATE_NAMES, type FollowState } from '@ecrf/core';
import { followApi, type FollowDraftImpact } from '../../../../../api/follow.api';
import { queryKeys } from '../../../../../api/query-keys';
import { useListMutation } from '../../../../../components/table-page';
import { COMMON_TEXT } from '../../../../../locales/common.zh-CN';
import { FOLLOW_DRAFT_TEXT } from '../../../../../locales/follow-draft.zh-CN';

const t = FOLLOW_DRAFT_TEXT;

type MoveRow = FollowDraftImpact['move'][number];
type StayRow = FollowDraftImpact['stay'][number];

/** The order the counts read in: who is reached, then what happens to their visits. */
const COUNT_KEYS = [
  'patients',
  'affectedPatients',
  'move',
  'add',
  'remove',
  'stay',
  'unchanged',
  'unscheduledPatients',
  'lockedPatients',
] as const;

/** The query key of a plan's draft impact (under the plan's, so any follow change refreshes it). */
export const draftImpactKey = (planId: number) => [...queryKeys.follow.plan(planId), 'draft-impact'] as const;

const patientCell = (row: { identificationCode: string; test: boolean }) => (
  <Space size={4}>
    {row.identificationCode}
    {row.test && <Tag>{t.testTag}</Tag>}
  </Space>
);

/** A visit's move as it reads in the table: 改期 2026-12-01 → 2027-01-01, 新增 → 2027-09-01, 删除 2027-03-01. */
export function changeText(row: Pick<MoveRow, 'kind' | 'fromDate' | 'toDate'>): string {
  if (row.kind === 'add') return `${t.kinds.add} → ${row.toDate}`;
  if (row.kind === 'remove') return `${t.kinds.remove} ${row.fromDate}`;
  return `${t.kinds.move} ${row.fromDate} → ${row.toDate}`;
}

/**
 * 查看影响: what publishing a plan's draft does to existing patients' visits (counts, the plan's own change, the
 * visits that move and those that stay), with 发布 (named, 修订名称) and 放弃草稿.
 */
export function DraftImpactDialog({
  studyId,
  plan,
  mayEdit,
  onClose,
}: {
  studyId: number;
  plan: { id: number; planName: string } | null;
  mayEdit: boolean;
  onClose: () => void;
}) {
  const { modal } = App.useApp();
  const [publishing, setPublishing] = useState(false);
  const [form] = Form.useForm<{ name: string }>();
  const impact = useQuery({
    queryKey: draftImpactKey(plan?.id ?? 0),
    queryFn: () => followApi.draftImpact(studyId, plan!.id).then((res) => res.data),
    enabled: plan !== null,
  });
  const close = () => {
    setPublishing(false);
    onClose();
  };
  const publish = useListMutation({
    mutationFn: (name: string) => followApi.publishDraft({ studyId, planId: plan!.id, name }),
    invalidate: [queryKeys.follow.all()],
    onSuccess: close,
  });
  const discard = useListMutation({
    mutationFn: () => followApi.discardDraft(studyId, plan!.id),
    invalidate: [queryKeys.follow.all()],
    onSuccess: close,
  });
  const data = impact.data;

  const moveColumns = [
    { title: t.code, key: 'code', render: (_: unknown, row: MoveRow) => patientCell(row) },
    { title: t.site, dataIndex: 'siteName' },
    { title: t.visit, dataIndex: 'visitName' },
    { title: t.change, key: 'change', render: (_: unknown, row: MoveRow) => changeText(row) },
    {
      title: t.newState,
      dataIndex: 'state',
      render: (state: FollowState | null) => (state === null ? '—' : FOLLOW_STATE_NAMES[state]),
    },
  ];
  const stayColumns = [
    { title: t.code, key: 'code', render: (_: unknown, row: StayRow) => patientCell(row) },
    { title: t.site, dataIndex: 'siteName' },
    { title: t.visit, dataIndex: 'visitName' },
    { title: t.plannedDate, dataIndex: 'plannedDate' },
    {
      title: t.proposedDate,
      dataIndex: 'proposedDate',
      render: (date: string | null) => date ?? t.dropped,
    },
    { title: t.reason, dataIndex: 'reason', render: (reason: string) => t.reasons[reason] ?? reason },
  ];
  const names = (list: { name: string }[]) => (list.length ? list.map((v) => v.name).join('、') : t.none);

  return (
    <Modal
      open={plan !== null}
      title={plan ? t.impactTitle(plan.planName) : ''}
      width={960}
      onCancel={close}
      destroyOnHidden
      footer={
        <Space>
          <Button onClick={close}>{COMMON_TEXT.cancel}</Button>
          {mayEdit && (
            <Button
              danger
              loading={discard.isPending}
              onClick={() =>
                modal.confirm({
                  title: t.discard,
                  content: t.confirmDiscard(plan?.planName ?? ''),
                  okButtonProps: { danger: true },
                  onOk: () => discard.mutateAsync(undefined),
                })
              }
            >
              {t.discard}
            </Button>
          )}
          {mayEdit && (
            <Button type="primary" disabled={!data} onClick={() => setPublishing(true)}>
              {t.publish}
            </Button>
          )}
        </Space>
      }
    >
      {impact.isLoading && <Typography.Text type="secondary">{COMMON_TEXT.loading}</Typography.Text>}
      {data && (
        <Space orientation="vertical" style={{ width: '100%' }} size="middle">
          <Descriptions size="small" bordered column={3} aria-label={t.viewImpact}>
            {COUNT_KEYS.map((key) => (
              <Descriptions.Item key={key} label={t.counts[key]}>
                {data.counts[key]}
              </Descriptions.Item>
            ))}
          </Descriptions>
          <Descriptions size="small" column={1} title={t.planChanges}>
            <Descriptions.Item label={t.addedVisits}>{names(data.plan.added)}</Descriptions.Item>
            <Descriptions.Item label={t.changedVisits}>{names(data.plan.changed)}</Descriptions.Item>
            <Descriptions.Item label={t.removedVisits}>{names(data.plan.removed)}</Descriptions.Item>
          </Descriptions>
          <Typography.Title level={5}>{t.moveTable}</Typography.Title>
          <Table<MoveRow>
            size="small"
            aria-label={t.moveTable}
            rowKey={(row) => `${row.subjectId}:${row.kind}:${row.followRecordId ?? row.visitName}`}
            columns={moveColumns}
            dataSource={data.move}
            pagination={{ pageSize: 10, hideOnSinglePage: true }}
            locale={{ emptyText: t.noMove }}
          />
          <Typography.Title level={5}>{t.stayTable}</Typography.Title>
          <Typography.Text type="secondary">{t.stayHint}</Typography.Text>
          <Table<StayRow>
            size="small"
            aria-label={t.stayTable}
            rowKey="followRecordId"
            columns={stayColumns}
            dataSource={data.stay}
            pagination={{ pageSize: 10, hideOnSinglePage: true }}
            locale={{ emptyText: t.noStay }}
          />
        </Space>
      )}
      <Modal
        open={publishing}
        title={t.publishTitle}
        onCancel={() => setPublishing(false)}
        onOk={() =>
          // A missing name shows under the field; nothing else to do with the refusal.
          void form.validateFields().then(
            (v) => publish.mutate(v.name.trim()),
            () => undefined,
          )
        }
        confirmLoading={publish.isPending}
        okText={t.publish}
        cancelText={COMMON_TEXT.cancel}
        destroyOnHidden
      >
        <Alert type="info" showIcon title={t.publishHint} style={{ marginBottom: 16 }} />
        <Form form={form} layout="vertical" preserve={false}>
          <Form.Item
            label={t.amendmentName}
            name="name"
            rules={[{ required: true, whitespace: true, message: t.amendmentNameRequired }]}
          >
            <Input maxLength={200} />
          </Form.Item>
        </Form>
      </Modal>
    </Modal>
  );
}
