import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Space } from 'antd';
import { LockOutlined, UnlockOutlined } from '@ant-design/icons';
import { lockApi, type LockState } from '../../../api/lock.api';
import { queryKeys } from '../../../api/query-keys';
import { LockReasonDialog } from '../../../components/locks/lock-reason-dialog';
import { useLockChange } from '../../../components/locks/use-lock-change';
import { LOCK_TEXT } from '../../../locales/lock.zh-CN';

/** What holds this casebook or form now, as a save would be told (docs/multi-centre.md). */
export function useRecordLock(studyId: number, subjectRecordId: number, crfDataRecordId: number | null) {
  return useQuery({
    queryKey: queryKeys.lock.state(studyId, subjectRecordId, crfDataRecordId),
    enabled: studyId > 0,
    queryFn: () =>
      lockApi
        .state({ studyId, subjectRecordId, ...(crfDataRecordId !== null && { crfDataRecordId }) })
        .then((res) => res.data),
  });
}

type Pending = { scope: 'record' | 'subject'; locked: boolean; title: string } | null;

/**
 * The CRF page's 🔒: who locked what, when and why, above the form (its write buttons are disabled meanwhile);
 * holders of 锁定/解锁 lock the form or the casebook here and lift such locks. Site and study locks are lifted
 * under 项目配置 → 数据锁定.
 */
export function LockBar({
  studyId,
  subjectRecordId,
  crfDataRecordId,
  canLock,
  state,
}: {
  studyId: number;
  subjectRecordId: number;
  crfDataRecordId: number | null;
  canLock: boolean;
  state: LockState | undefined;
}) {
  const [pending, setPending] = useState<Pending>(null);
  const change = useLockChange(() => setPending(null));
  const lock = state?.lock ?? null;
  const submit = (reason: string) => {
    if (!pending) return;
    const targetId = pending.scope === 'record' ? crfDataRecordId : subjectRecordId;
    change.mutate({ studyId, scope: pending.scope, targetId, locked: pending.locked, reason });
  };
  const dialog = (
    <LockReasonDialog
      open={Boolean(pending)}
      title={pending?.title ?? ''}
      unlocking={pending?.locked === false}
      pending={change.isPending}
      onSubmit={submit}
      onClose={() => setPending(null)}
    />
  );

  if (state?.locked) {
    const liftable = canLock && lock && (lock.scope === 'record' || lock.scope === 'subject');
    return (
      <>
        <Alert
          className="crf-lock-bar"
          type="warning"
          showIcon
          icon={<LockOutlined />}
          title={state.message ?? ''}
          description={lock?.reason ? LOCK_TEXT.reasonOf(lock.reason) : undefined}
          action={
            liftable ? (
              <Button
                size="small"
                icon={<UnlockOutlined />}
                onClick={() =>
                  setPending({
                    scope: lock.scope as 'record' | 'subject',
                    locked: false,
                    title: LOCK_TEXT.unlockTitle(lock.scopeName),
                  })
                }
              >
                {LOCK_TEXT.unlock}
              </Button>
            ) : undefined
          }
          style={{ marginBottom: 12 }}
        />
        {dialog}
      </>
    );
  }
  if (!canLock || !state) return null;
  return (
    <>
      <Space className="crf-lock-actions" style={{ marginBottom: 8 }}>
        {crfDataRecordId !== null && (
          <Button
            size="small"
            icon={<LockOutlined />}
            onClick={() => setPending({ scope: 'record', locked: true, title: LOCK_TEXT.lockForm })}
          >
            {LOCK_TEXT.lockForm}
          </Button>
        )}
        <Button
          size="small"
          icon={<LockOutlined />}
          onClick={() => setPending({ scope: 'subject', locked: true, title: LOCK_TEXT.lockCasebook })}
        >
          {LOCK_TEXT.lockCasebook}
        </Button>
      </Space>
      {dialog}
    </>
  );
}
