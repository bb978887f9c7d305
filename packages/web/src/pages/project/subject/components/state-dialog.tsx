import { useEffect } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Modal, Radio } from 'antd';
import { MSG } from '@ecrf/core';
import { SUBJECT_STATE, subjectRecordApi, type SubjectRecordRow, type SubjectState } from '../../../../api/subject.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { SUBJECT_TEXT } from '../../../../locales/subject.zh-CN';
import { STATE_OPTIONS } from '../subject-state';
import { queryKeys } from '../../../../api/query-keys';
import { validatedValues } from '../../../../components/validated-values';

interface StateFields {
  state: SubjectState;
  reason?: string;
}

/** 修改状态 (SUBJ-25, SUBJ-26): 在组, 完成 or 退出; leaving the study needs a reason. */
export function StateDialog({ record, onClose }: { record: SubjectRecordRow | null; onClose: () => void }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<StateFields>();
  const chosen = Form.useWatch('state', form);

  useEffect(() => {
    if (!record) return;
    form.resetFields();
    form.setFieldsValue({ state: record.state });
  }, [record, form]);

  const save = useMutation({
    mutationFn: (values: StateFields) =>
      subjectRecordApi.setState({
        subjectRecordId: record!.subjectRecordId,
        state: values.state,
        ...(values.reason?.trim() ? { reason: values.reason.trim() } : {}),
      }),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.studyIndex.all() });
      onClose();
    },
  });

  const submit = async () => {
    const values = await validatedValues(form);
    if (values) save.mutate(values);
  };

  const withdrawing = chosen === SUBJECT_STATE.withdrawn;

  return (
    <Modal
      open={Boolean(record)}
      title={record ? SUBJECT_TEXT.stateTitle(record.subjectName) : ''}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={save.isPending}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Form form={form} name="state-dialog" layout="vertical">
        <Form.Item label={SUBJECT_TEXT.newState} name="state" required>
          <Radio.Group optionType="button" buttonStyle="solid" options={STATE_OPTIONS} />
        </Form.Item>
        <Form.Item
          label={withdrawing ? SUBJECT_TEXT.withdrawReason : SUBJECT_TEXT.reason}
          name="reason"
          required={withdrawing}
          dependencies={['state']}
          rules={[
            // Judged on the state chosen at validation time, not on the last render's.
            ({ getFieldValue }) => ({
              validator: async (_rule, value: string | undefined) => {
                if (getFieldValue('state') === SUBJECT_STATE.withdrawn && !value?.trim()) {
                  throw new Error(SUBJECT_TEXT.withdrawReasonRequired);
                }
              },
            }),
          ]}
        >
          <Input.TextArea rows={3} maxLength={500} showCount placeholder={SUBJECT_TEXT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
