import { useEffect } from 'react';
import { Alert, Form, Input, Modal } from 'antd';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { LOCK_TEXT } from '../../locales/lock.zh-CN';

/** Asks why a lock is set or lifted: the reason goes on the audit trail with it. */
export function LockReasonDialog({
  open,
  title,
  unlocking,
  pending,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  unlocking: boolean;
  pending: boolean;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  const [form] = Form.useForm<{ reason: string }>();
  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);
  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (values) onSubmit(values.reason.trim());
  };
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={pending}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Alert
        type={unlocking ? 'info' : 'warning'}
        showIcon
        title={unlocking ? LOCK_TEXT.unlockHint : LOCK_TEXT.lockHint}
        style={{ marginBottom: 16 }}
      />
      <Form form={form} name="lock-reason-dialog" layout="vertical">
        <Form.Item
          label={LOCK_TEXT.reason}
          name="reason"
          rules={[{ required: true, whitespace: true, message: LOCK_TEXT.reasonRequired }]}
        >
          <Input.TextArea rows={3} maxLength={500} showCount />
        </Form.Item>
      </Form>
    </Modal>
  );
}
