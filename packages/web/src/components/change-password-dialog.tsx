import { useEffect, useState } from 'react';
import { Alert, App, Button, Form, Input, Modal } from 'antd';
import { authApi } from '../api/auth.api';
import { ApiError } from '../api/request';
import { COMMON_TEXT } from '../locales/common.zh-CN';
import { PASSWORD_TEXT } from '../locales/password.zh-CN';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
import { asValidator, confirmPasswordError, newPasswordError, oldPasswordError } from './change-password-rules';

/**
 * normal: the signed-in user changes the own password.
 * reset: an administrator sets another user's password (no original password).
 * must: the server demands a new password after sign-in (first sign-in, or after a reset); the dialog cannot be
 * dismissed, says why, and offers 退出登录 instead.
 */
export type ChangePasswordMode = 'normal' | 'reset' | 'must';

export interface PasswordTarget {
  userId: number;
  userName: string;
}

interface FormValues {
  oldPassword?: string;
  newPassword: string;
  confirmPassword: string;
}

interface ChangePasswordDialogProps {
  open: boolean;
  mode: ChangePasswordMode;
  target: PasswordTarget | null;
  onClose: () => void;
  onSuccess?: () => void;
  /** must mode: 退出登录, the one way out other than a new password. */
  onLogout?: () => void;
}

export function ChangePasswordDialog({ open, mode, target, onClose, onSuccess, onLogout }: ChangePasswordDialogProps) {
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();
  const [saving, setSaving] = useState(false);
  const reset = mode === 'reset';
  const must = mode === 'must';

  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);

  // A message left from the sign-in (an earlier refused attempt) would read as if it were about this dialog.
  useEffect(() => {
    if (open && must) message.destroy();
  }, [open, must, message]);

  const submit = async () => {
    if (!target) return;
    // Failed rules are already shown under their fields.
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    setSaving(true);
    try {
      const res = reset
        ? await authApi.resetPassword({ userId: target.userId, newPassword: values.newPassword })
        : await authApi.changePassword({
            userId: target.userId,
            oldPassword: values.oldPassword ?? '',
            newPassword: values.newPassword,
          });
      // AUTH-13: the server's own words, on success as on failure.
      void message.success(res.msg);
      onSuccess?.();
      onClose();
    } catch (error) {
      if (error instanceof ApiError) void message.error(error.message);
    } finally {
      setSaving(false);
    }
  };

  const footer = [
    must ? (
      onLogout && (
        <Button key="logout" onClick={onLogout}>
          {SHELL_TEXT.logout}
        </Button>
      )
    ) : (
      <Button key="cancel" onClick={onClose}>
        {COMMON_TEXT.cancel}
      </Button>
    ),
    <Button key="ok" type="primary" loading={saving} onClick={() => void submit()}>
      {COMMON_TEXT.ok}
    </Button>,
  ];

  return (
    <Modal
      open={open}
      title={PASSWORD_TEXT.title}
      onCancel={must ? undefined : onClose}
      closable={!must}
      keyboard={!must}
      mask={{ closable: !must }}
      footer={footer}
      destroyOnHidden
      width={520}
    >
      {must && <Alert type="info" showIcon title={PASSWORD_TEXT.mustChangeHint} style={{ marginBottom: 16 }} />}
      <Form
        form={form}
        name={`password-${mode}`}
        labelCol={{ span: 6 }}
        wrapperCol={{ span: 16 }}
        autoComplete="off"
        onFinish={() => void submit()}
      >
        {!reset && (
          <Form.Item
            label={PASSWORD_TEXT.oldPassword}
            name="oldPassword"
            required
            rules={[asValidator(oldPasswordError)]}
          >
            <Input.Password placeholder={PASSWORD_TEXT.oldPassword} autoComplete="current-password" />
          </Form.Item>
        )}
        <Form.Item label={PASSWORD_TEXT.userName}>
          <Input value={target?.userName ?? ''} readOnly variant="filled" aria-label={PASSWORD_TEXT.userName} />
        </Form.Item>
        <Form.Item
          label={PASSWORD_TEXT.newPassword}
          name="newPassword"
          required
          dependencies={reset ? [] : ['oldPassword']}
          rules={[
            ({ getFieldValue }) =>
              asValidator((value) =>
                newPasswordError(value, reset ? undefined : (getFieldValue('oldPassword') as string)),
              ),
          ]}
        >
          <Input.Password placeholder={PASSWORD_TEXT.newPassword} autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label={PASSWORD_TEXT.confirmPassword}
          name="confirmPassword"
          required
          dependencies={['newPassword']}
          rules={[
            ({ getFieldValue }) =>
              asValidator((value) => confirmPasswordError(value, getFieldValue('newPassword') as string)),
          ]}
        >
          <Input.Password placeholder={PASSWORD_TEXT.confirmPassword} autoComplete="new-password" />
        </Form.Item>
        <button type="submit" hidden />
      </Form>
    </Modal>
  );
}
