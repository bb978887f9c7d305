import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DatePicker, Form, Input, InputNumber, Modal, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { followApi, type FollowRecord } from '../../../../../api/follow.api';
import { queryKeys } from '../../../../../api/query-keys';
import { useListMutation } from '../../../../../components/table-page';
import { COMMON_TEXT } from '../../../../../locales/common.zh-CN';
import { FOLLOW_TEXT } from '../../../../../locales/follow.zh-CN';

const t = FOLLOW_TEXT;

export type RecordDialogState =
  | { kind: 'lost' | 'restore' | 'remove'; row: FollowRecord }
  | { kind: 'date'; row: FollowRecord }
  | { kind: 'custom'; row: FollowRecord };

const invalidate = [queryKeys.follow.all()];

/** 失访 / 恢复 / 删除 (a reason each), 修改计划日期 (a date and a reason), 添加随访 (a custom visit with its forms). */
export function RecordDialog({
  studyId,
  state,
  onClose,
}: {
  studyId: number;
  state: RecordDialogState | null;
  onClose: () => void;
}) {
  const [form] = Form.useForm();
  useEffect(() => {
    if (state) form.resetFields();
  }, [state, form]);
  const crfs = useQuery({
    queryKey: queryKeys.follow.crfs(studyId),
    queryFn: () => followApi.crfs(studyId).then((res) => res.data),
    enabled: state?.kind === 'custom',
  });
  const act = useListMutation({
    mutationFn: async (values: Record<string, unknown>) => {
      const row = state!.row;
      const reason = String(values.reason ?? '');
      switch (state!.kind) {
        case 'lost':
        case 'restore':
          return followApi.setStatus({ followRecordId: row.followRecordId, action: state!.kind, reason });
        case 'remove':
          return followApi.removeRecord(row.followRecordId, reason);
        case 'date':
          return followApi.changeDate({
            followRecordId: row.followRecordId,
            plannedDate: (values.plannedDate as Dayjs).format('YYYY-MM-DD'),
            reason,
          });
        case 'custom':
          return followApi.addCustom({
            subjectRecordId: row.subjectRecordId,
            visitName: String(values.visitName),
            plannedDate: (values.plannedDate as Dayjs).format('YYYY-MM-DD'),
            windowBefore: Number(values.windowBefore ?? 0),
            windowAfter: Number(values.windowAfter ?? 0),
            crfIds: values.crfIds as number[],
          });
      }
    },
    invalidate,
    onSuccess: onClose,
  });
  if (!state) return null;
  const title = {
    lost: t.lostTitle,
    restore: t.restoreTitle,
    remove: t.removeTitle,
    date: t.changeDate,
    custom: t.addCustom,
  }[state.kind];
  const reasonItem = (
    <Form.Item label={t.reason} name="reason" rules={[{ required: true, whitespace: true, message: t.reasonRequired }]}>
      <Input.TextArea maxLength={500} autoSize={{ minRows: 2, maxRows: 4 }} />
    </Form.Item>
  );
  return (
    <Modal
      open
      title={`${title} · ${state.row.identificationCode}${state.kind === 'custom' ? '' : ` ${state.row.visitName}`}`}
      onCancel={onClose}
      onOk={() => void form.validateFields().then((values) => act.mutate(values))}
      confirmLoading={act.isPending}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      destroyOnHidden
    >
      <Form form={form} name={`follow-record-${state.kind}`} layout="vertical">
        {state.kind === 'custom' && (
          <>
            <Form.Item label={t.visitName} name="visitName" rules={[{ required: true, whitespace: true, max: 50 }]}>
              <Input maxLength={50} />
            </Form.Item>
            <Form.Item label={t.plannedDate} name="plannedDate" rules={[{ required: true }]}>
              <DatePicker style={{ width: '100%' }} />
            </Form.Item>
            <Form.Item label={t.windowBefore} name="windowBefore" initialValue={0}>
              <InputNumber min={0} max={365} precision={0} />
            </Form.Item>
            <Form.Item label={t.windowAfter} name="windowAfter" initialValue={7}>
              <InputNumber min={0} max={365} precision={0} />
            </Form.Item>
            <Form.Item label={t.crfs} name="crfIds" rules={[{ required: true }]}>
              <Select
                mode="multiple"
                options={(crfs.data ?? []).map((c) => ({ value: c.crfId, label: c.title }))}
                loading={crfs.isFetching}
              />
            </Form.Item>
          </>
        )}
        {state.kind === 'date' && (
          <Form.Item label={t.newPlannedDate} name="plannedDate" rules={[{ required: true }]}>
            <DatePicker style={{ width: '100%' }} />
          </Form.Item>
        )}
        {state.kind !== 'custom' && reasonItem}
      </Form>
    </Modal>
  );
}
