import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi, type SelectedRow, type SubjectRandomization } from '../../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { RandomizationResultView } from './randomization-result';

const t = RANDOMIZATION_TEXT;

/** The user's password again, which unblinding asks for, and the server's refusal (a wrong one) under it. */
function PasswordField({ error }: { error: Error | null }) {
  return (
    <>
      <Form.Item name="password" label={t.password} rules={[{ required: true, message: t.passwordRequired }]}>
        <Input.Password autoComplete="current-password" maxLength={100} />
      </Form.Item>
      {error && <Alert type="error" showIcon title={error.message} />}
    </>
  );
}

/**
 * 紧急揭盲 (RAND-06): the user's password again and a required reason; the arm is then shown to this user only,
 * and the patient is marked 已紧急揭盲 for everyone.
 */
export function EmergencyDialog({
  studyId,
  row,
  onClose,
}: {
  studyId: number;
  row: SelectedRow | null;
  onClose: () => void;
}) {
  const [form] = Form.useForm<{ password: string; reason: string }>();
  const queryClient = useQueryClient();
  const [done, setDone] = useState<SubjectRandomization | null>(null);
  const unblind = useMutation({
    mutationFn: (values: { password: string; reason: string }) =>
      randomizationApi.unblind({ studyId, subjectId: row!.subjectId, ...values }),
    onSuccess: (res) => {
      setDone(res.data);
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.lists() });
    },
  });
  const close = () => {
    setDone(null);
    unblind.reset();
    form.resetFields();
    onClose();
  };
  return (
    <Modal
      open={Boolean(row)}
      title={row ? t.emergencyTitle(`${row.subjectName}（${row.identificationCode}）`) : ''}
      onCancel={close}
      destroyOnHidden
      footer={
        done ? (
          <Button type="primary" onClick={close}>
            {t.close}
          </Button>
        ) : (
          <>
            <Button onClick={close}>{t.cancel}</Button>
            <Button type="primary" danger loading={unblind.isPending} onClick={() => form.submit()}>
              {t.confirmUnblind}
            </Button>
          </>
        )
      }
    >
      {done ? (
        <>
          <Alert type="warning" showIcon className="rand-alert" title={t.emergencyShown} />
          <RandomizationResultView result={done} />
        </>
      ) : (
        <Form form={form} layout="vertical" name="rand-emergency" onFinish={(values) => unblind.mutate(values)}>
          <Alert type="warning" showIcon className="rand-alert" title={t.emergencyHint} />
          <Form.Item
            name="reason"
            label={t.unblindReason}
            rules={[{ required: true, whitespace: true, message: t.unblindReasonRequired }]}
          >
            <Input.TextArea rows={3} maxLength={500} />
          </Form.Item>
          <PasswordField error={unblind.error} />
        </Form>
      )}
    </Modal>
  );
}

/** 全部揭盲 (RAND-06, end of study): password and the study's name typed as confirmation; then arms are visible to all. */
export function UnblindAllDialog({
  studyId,
  studyName,
  open,
  onClose,
}: {
  studyId: number;
  studyName: string;
  open: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<{ password: string; confirmText: string; reason?: string }>();
  const queryClient = useQueryClient();
  const unblind = useMutation({
    mutationFn: (values: { password: string; confirmText: string; reason?: string }) =>
      randomizationApi.unblindAll({ studyId, ...values }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
      close();
    },
  });
  const close = () => {
    unblind.reset();
    form.resetFields();
    onClose();
  };
  return (
    <Modal
      open={open}
      title={t.unblindAllTitle}
      onCancel={close}
      destroyOnHidden
      okText={t.confirmUnblindAll}
      okButtonProps={{ danger: true, loading: unblind.isPending }}
      onOk={() => form.submit()}
    >
      <Form form={form} layout="vertical" name="rand-unblind-all" onFinish={(values) => unblind.mutate(values)}>
        <Alert type="error" showIcon className="rand-alert" title={t.unblindAllHint} />
        <Form.Item
          name="confirmText"
          label={t.confirmTextLabel(studyName)}
          rules={[
            { required: true, message: t.confirmTextRequired },
            {
              validator: (_, v) =>
                v === undefined || v.trim() === studyName
                  ? Promise.resolve()
                  : Promise.reject(new Error(t.confirmTextMismatch)),
            },
          ]}
        >
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="reason" label={t.unblindAllReason}>
          <Input maxLength={500} />
        </Form.Item>
        <PasswordField error={unblind.error} />
      </Form>
    </Modal>
  );
}
