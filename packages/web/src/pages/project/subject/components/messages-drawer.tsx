import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Descriptions, Drawer, Space, Spin } from 'antd';
import { messageKeys, messagesApi } from '../../../../api/messages.api';
import { ReasonDialog } from '../../../../components/reason-dialog';
import { Denied } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { MESSAGES_TEXT as t } from '../../../../locales/messages.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { MessageTable } from '../../follow/messages/message-table';

export interface MessagesDrawerTarget {
  subjectId: number;
  identificationCode: string;
}

/**
 * 提醒记录 (issue 38): one patient's messages, newest first, and whether they opted out; staff holding 患者提醒 record
 * the patient's word (退订 / 恢复提醒, with a reason; audited by the server).
 */
export function MessagesDrawer({
  studyId,
  target,
  canChange,
  onClose,
}: {
  studyId: number;
  target: MessagesDrawerTarget | null;
  canChange: boolean;
  onClose: () => void;
}) {
  return (
    <Drawer
      title={target ? t.recordsTitle(target.identificationCode) : t.records}
      open={Boolean(target)}
      onClose={onClose}
      size="large"
      destroyOnHidden
    >
      {target && <MessagesBody studyId={studyId} subjectId={target.subjectId} canChange={canChange} />}
    </Drawer>
  );
}

function MessagesBody({ studyId, subjectId, canChange }: { studyId: number; subjectId: number; canChange: boolean }) {
  const queryClient = useQueryClient();
  const [pageNum, setPageNum] = useState(1);
  const [asking, setAsking] = useState<'out' | 'in' | null>(null);
  const filter = { subjectId, pageNum, pageSize: 10 };
  const list = useQuery({
    queryKey: messageKeys.list(studyId, filter),
    queryFn: () => messagesApi.list(studyId, filter).then((res) => res.data),
  });
  const opt = useQuery({
    queryKey: messageKeys.opt(studyId, subjectId),
    queryFn: () => messagesApi.optState(studyId, subjectId).then((res) => res.data),
  });
  const change = useListMutation({
    mutationFn: ({ out, reason }: { out: boolean; reason: string }) =>
      out ? messagesApi.optOut(studyId, subjectId, reason) : messagesApi.optIn(studyId, subjectId, reason),
    invalidate: [messageKeys.opt(studyId, subjectId), messageKeys.report(studyId)],
    onSuccess: () => {
      setAsking(null);
      void queryClient.invalidateQueries({ queryKey: messageKeys.all });
    },
  });
  const state = opt.data;
  const button = state && (
    <Button danger={!state.optedOut} disabled={!canChange} onClick={() => setAsking(state.optedOut ? 'in' : 'out')}>
      {state.optedOut ? t.optIn : t.optOut}
    </Button>
  );

  return (
    <>
      <Descriptions size="small" column={1} style={{ marginBottom: 16 }}>
        <Descriptions.Item label={t.optState}>
          {!state ? (
            <Spin size="small" />
          ) : (
            <Space>
              <span>
                {state.optedOut
                  ? t.optedOutBy(t.bySource[state.source ?? 'staff'] ?? '', formatDate(state.createTime))
                  : t.receiving}
              </span>
              {canChange ? button : <Denied>{button}</Denied>}
            </Space>
          )}
        </Descriptions.Item>
        {state?.optedOut && state.reason && <Descriptions.Item label={t.reason}>{state.reason}</Descriptions.Item>}
      </Descriptions>
      <MessageTable
        label={t.records}
        withPatient={false}
        withContent
        rows={list.data?.list ?? []}
        loading={list.isFetching}
        pagination={{ current: pageNum, pageSize: 10, total: list.data?.total ?? 0, onChange: setPageNum }}
      />
      <ReasonDialog
        open={asking !== null}
        title={asking === 'out' ? t.optOutTitle : t.optInTitle}
        hint={asking === 'out' ? t.optOutHint : t.optInHint}
        label={t.reason}
        requiredMessage={t.reasonRequired}
        danger={asking === 'out'}
        pending={change.isPending}
        onSubmit={(reason) => change.mutate({ out: asking === 'out', reason })}
        onClose={() => setAsking(null)}
      />
    </>
  );
}
