import { useEffect } from 'react';
import { Alert, Form, Input, Modal } from 'antd';
import { COMMON_TEXT } from '../locales/common.zh-CN';
import { SUBJECT_TEXT } from '../locales/subject.zh-CN';
import { validatedValues } from './validated-values';

export interface ReasonDialogProps {
  open: boolean;
  title: string;
  hint: string;
  label: string;
  requiredMessage: string;
  danger?: boolean;
  pending: boolean;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}

/** Asks why before a change the audit trail must explain (删除, 恢复, 锁定, 解锁). */
export function ReasonDialog({
  open,
  title,
  hint,
  label,
  requiredMessage,
  danger,
  pending,
  onSubmit,
  onClose,
}: ReasonDialogProps) {
  const [form] = Form.useForm<{ reason: string }>();

  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);

  const submit = async () => {
    const values = await validatedValues(form);
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
      okButtonProps={{ danger }}
      confirmLoading={pending}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Alert type={danger ? 'warning' : 'info'} showIcon title={hint} style={{ marginBottom: 16 }} />
      <Form form={form} name="reason-dialog" layout="vertical">
        <Form.Item label={label} name="reason" rules={[{ required: true, whitespace: true, message: requiredMessage }]}>
          <Input.TextArea rows={3} maxLength={500} showCount placeholder={SUBJECT_TEXT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
