import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Modal, Radio, Select, Space, Switch, Table, type TableColumnsType } from 'antd';
import { LockOutlined } from '@ant-design/icons';
import { lockApi, type StudyLockHistory } from '../../../../api/lock.api';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi } from '../../../../api/randomization.api';
import type { Study } from '../../../../api/study.api';
import { LockReasonDialog } from '../../../../components/locks/lock-reason-dialog';
import { useLockChange } from '../../../../components/locks/use-lock-change';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { LOCK_TEXT } from '../../../../locales/lock.zh-CN';
import { useSession } from '../../../../stores/session.store';
import { formatDate } from '../../../../utils/format-date';
import { canInStudy } from '../../../project/study-access';
import { validatedValues } from '../../../../components/validated-values';

type Pending =
  | { kind: 'lock'; scope: 'study' | 'site'; targetId: number | null; title: string }
  | { kind: 'unlock'; lock: StudyLockHistory }
  | null;

/** 新增锁定: the whole study (数据库锁定) or a site (中心锁定); casebooks and forms are locked on the CRF page. */
function NewLockDialog({
  studyId,
  open,
  onNext,
  onClose,
}: {
  studyId: number;
  open: boolean;
  onNext: (scope: 'study' | 'site', targetId: number | null, title: string) => void;
  onClose: () => void;
}) {
  const [form] = Form.useForm<{ scope: 'study' | 'site'; siteId?: number }>();
  const scope = Form.useWatch('scope', form);
  const sites = useQuery({
    queryKey: queryKeys.randomization.depts(studyId),
    enabled: open,
    queryFn: () => randomizationApi.factorDepts(studyId).then((res) => res.data),
  });
  const next = async () => {
    const values = await validatedValues(form);
    if (!values) return;
    const site = sites.data?.find((s) => s.deptId === values.siteId);
    onNext(
      values.scope,
      values.scope === 'site' ? (values.siteId ?? null) : null,
      values.scope === 'site' ? `${LOCK_TEXT.scopeSite}：${site?.deptName ?? ''}` : LOCK_TEXT.scopeStudy,
    );
  };
  return (
    <Modal
      open={open}
      title={LOCK_TEXT.addLock}
      onCancel={onClose}
      onOk={() => void next()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      destroyOnHidden
    >
      <Form form={form} name="new-lock-dialog" layout="vertical" initialValues={{ scope: 'site' }}>
        <Form.Item label={LOCK_TEXT.scope} name="scope">
          <Radio.Group
            options={[
              { value: 'site', label: LOCK_TEXT.scopeSite },
              { value: 'study', label: LOCK_TEXT.scopeStudy },
            ]}
          />
        </Form.Item>
        {scope === 'study' ? (
          <Alert type="warning" showIcon title={LOCK_TEXT.confirmStudy} />
        ) : (
          <Form.Item label={LOCK_TEXT.site} name="siteId" rules={[{ required: true, message: LOCK_TEXT.siteRequired }]}>
            <Select
              loading={sites.isLoading}
              placeholder={COMMON_TEXT.selectPlaceholder}
              options={(sites.data ?? []).map((s) => ({ value: s.deptId, label: s.deptName }))}
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

/**
 * 数据锁定 (docs/multi-centre.md): what is locked in the study, by whom, when and why; the history with lifted locks
 * and each study lock's audit chain head; holders of 锁定/解锁 set site and study locks and lift any lock here.
 */
export function LocksPanel({ study }: { study: Study }) {
  const permissions = useSession((s) => s.permissions);
  const canLock = canInStudy({ permissions, myRole: study.myRole }, 'business.lock');
  const [history, setHistory] = useState(false);
  const [choosing, setChoosing] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const change = useLockChange(() => setPending(null));
  const locks = useQuery({
    queryKey: history ? queryKeys.lock.history(study.id) : queryKeys.lock.list(study.id),
    queryFn: () =>
      (history ? lockApi.history(study.id) : lockApi.list(study.id)).then((res) => res.data as StudyLockHistory[]),
  });

  const columns: TableColumnsType<StudyLockHistory> = [
    { title: LOCK_TEXT.scope, dataIndex: 'scopeName', width: 110 },
    { title: LOCK_TEXT.target, dataIndex: 'targetName', width: 160, render: (v: string) => v || '—' },
    { title: LOCK_TEXT.lockedBy, dataIndex: 'lockedByName', width: 110 },
    { title: LOCK_TEXT.lockedAt, dataIndex: 'lockedAt', width: 170, render: (v: string) => formatDate(v) },
    { title: LOCK_TEXT.reason, dataIndex: 'reason', ellipsis: true },
    ...(history
      ? [
          {
            title: LOCK_TEXT.unlockedBy,
            dataIndex: 'unlockedByName',
            width: 110,
            render: (v: string | null) => v ?? '',
          },
          {
            title: LOCK_TEXT.unlockedAt,
            dataIndex: 'unlockedAt',
            width: 170,
            render: (v: string | null) => (v ? formatDate(v) : ''),
          },
          { title: LOCK_TEXT.unlockReason, dataIndex: 'unlockReason', ellipsis: true },
          {
            title: LOCK_TEXT.chainHead,
            dataIndex: 'chainHead',
            width: 140,
            ellipsis: true,
            render: (v: string | null) => (v ? <code title={v}>{v.slice(0, 12)}…</code> : ''),
          },
        ]
      : []),
    ...(canLock && !history
      ? [
          {
            title: COMMON_TEXT.actions,
            key: 'actions',
            width: 90,
            render: (_: unknown, lock: StudyLockHistory) => (
              <Button type="link" size="small" onClick={() => setPending({ kind: 'unlock', lock })}>
                {LOCK_TEXT.unlock}
              </Button>
            ),
          },
        ]
      : []),
  ];

  const submit = (reason: string) => {
    if (!pending) return;
    if (pending.kind === 'lock') {
      change.mutate({ studyId: study.id, scope: pending.scope, targetId: pending.targetId, locked: true, reason });
    } else {
      const { lock } = pending;
      change.mutate({
        studyId: study.id,
        scope: lock.scope,
        targetId: lock.scope === 'study' ? null : lock.targetId,
        locked: false,
        reason,
      });
    }
  };

  return (
    <div className="locks-panel">
      <Space style={{ marginBottom: 12 }} wrap>
        {canLock && (
          <Button type="primary" icon={<LockOutlined aria-hidden />} onClick={() => setChoosing(true)}>
            {LOCK_TEXT.addLock}
          </Button>
        )}
        <label>
          <Switch size="small" checked={history} onChange={setHistory} aria-label={LOCK_TEXT.history} />{' '}
          {LOCK_TEXT.history}
        </label>
      </Space>
      <Table<StudyLockHistory>
        rowKey="id"
        size="middle"
        loading={locks.isLoading}
        columns={columns}
        dataSource={locks.data ?? []}
        pagination={false}
        locale={{ emptyText: LOCK_TEXT.none }}
        scroll={{ x: 'max-content' }}
      />
      <NewLockDialog
        studyId={study.id}
        open={choosing}
        onClose={() => setChoosing(false)}
        onNext={(scope, targetId, title) => {
          setChoosing(false);
          setPending({ kind: 'lock', scope, targetId, title });
        }}
      />
      <LockReasonDialog
        open={Boolean(pending)}
        title={
          pending?.kind === 'lock'
            ? pending.title
            : pending
              ? LOCK_TEXT.unlockTitle(`${pending.lock.scopeName} ${pending.lock.targetName}`.trim())
              : ''
        }
        unlocking={pending?.kind === 'unlock'}
        pending={change.isPending}
        onSubmit={submit}
        onClose={() => setPending(null)}
      />
    </div>
  );
}
