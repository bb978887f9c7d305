import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Form, Input, Modal, Skeleton } from 'antd';
import { lifecycleApi } from '../../../../api/lifecycle.api';
import { queryKeys } from '../../../../api/query-keys';
import type { Study } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { LIFECYCLE_TEXT } from '../../../../locales/lifecycle.zh-CN';

interface GoLiveValues {
  confirmCode: string;
  reason: string;
}

/**
 * 上线 (docs/lifecycle.md): names what will be purged (the server's counts, read when the dialog opens), asks for
 * the study's code typed again and a reason, then goes live. Every view is read again afterwards: the purge
 * removed patients, records, queries, randomizations, visits and files everywhere.
 */
export function GoLiveDialog({
  study,
  open,
  onClose,
}: {
  study: Pick<Study, 'id' | 'studyCode' | 'studyName'>;
  open: boolean;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<GoLiveValues>();
  const preview = useQuery({
    queryKey: queryKeys.study.goLive(study.id),
    enabled: open,
    // Always the counts of now: patients may have been added since the dialog was last opened.
    staleTime: 0,
    gcTime: 0,
    queryFn: () => lifecycleApi.goLivePreview(study.id).then((res) => res.data),
  });
  const goLive = useMutation({
    mutationFn: (values: GoLiveValues) =>
      lifecycleApi.goLive({ studyId: study.id, confirmCode: values.confirmCode.trim(), reason: values.reason.trim() }),
    onSuccess: (res) => {
      void message.success(res.msg || LIFECYCLE_TEXT.done);
      void queryClient.invalidateQueries();
      onClose();
    },
  });

  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);

  const submit = async () => {
    let values: GoLiveValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    goLive.mutate(values);
  };

  const counts = preview.data?.counts;
  const live = preview.data?.mode === 'production';
  return (
    <Modal
      open={open}
      title={`${LIFECYCLE_TEXT.dialogTitle}：${study.studyName}`}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={LIFECYCLE_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      okButtonProps={{ danger: true, disabled: !counts || live }}
      confirmLoading={goLive.isPending}
      destroyOnHidden
      mask={{ closable: false }}
    >
      {!counts ? (
        <Skeleton active paragraph={{ rows: 2 }} title={false} aria-label={LIFECYCLE_TEXT.loadingCounts} />
      ) : (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={live ? LIFECYCLE_TEXT.liveHint : LIFECYCLE_TEXT.purgeIntro}
          description={
            live ? undefined : (
              <>
                <p style={{ margin: '4px 0' }} data-testid="golive-counts">
                  {LIFECYCLE_TEXT.counts(counts)}
                </p>
                <p style={{ margin: 0 }}>{LIFECYCLE_TEXT.auditNote}</p>
              </>
            )
          }
        />
      )}
      <Form form={form} name="golive-dialog" layout="vertical" disabled={live}>
        <Form.Item
          label={LIFECYCLE_TEXT.confirmCode(study.studyCode)}
          name="confirmCode"
          rules={[
            { required: true, whitespace: true, message: LIFECYCLE_TEXT.confirmCodeRequired },
            {
              validator: (_, value: string | undefined) =>
                !value?.trim() || value.trim() === study.studyCode
                  ? Promise.resolve()
                  : Promise.reject(new Error(LIFECYCLE_TEXT.confirmCodeMismatch)),
            },
          ]}
        >
          <Input autoComplete="off" aria-label={LIFECYCLE_TEXT.confirmCodeLabel} placeholder={study.studyCode} />
        </Form.Item>
        <Form.Item
          label={LIFECYCLE_TEXT.reason}
          name="reason"
          rules={[{ required: true, whitespace: true, message: LIFECYCLE_TEXT.reasonRequired }]}
        >
          <Input.TextArea rows={3} maxLength={500} showCount placeholder={LIFECYCLE_TEXT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
