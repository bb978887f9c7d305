import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Tag } from 'antd';
import { queryKeys } from '../../api/query-keys';
import { patientApi } from '../../api/patient.api';
import { PATIENT_MESSAGES_TEXT as t } from '../../locales/messages.zh-CN';

const optKey = () => [...queryKeys.patient.all(), 'messages', 'opt-out'] as const;

/**
 * 消息提醒 on the patient's home (issue 38): whether the study sends them reminders, and 退订提醒 after a confirm.
 * Staff restore reminders (恢复提醒) on the patient's word; the patient is told to ask them.
 */
export function MessageOptOutCard() {
  const queryClient = useQueryClient();
  const { modal } = App.useApp();
  const opt = useQuery({ queryKey: optKey(), queryFn: () => patientApi.messageOptState(), retry: false });
  const optOut = useMutation({
    mutationFn: () => patientApi.optOutMessages(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: optKey() }),
  });
  // Nothing to show when the study has no reminders to tell of (or the call failed quietly).
  if (!opt.data) return null;
  const out = opt.data.optedOut;
  return (
    <section className="patient-card" aria-label={t.title}>
      <h2>
        {t.title} {out && <Tag color="default">{t.optedOut}</Tag>}
      </h2>
      <p className="patient-note">{out ? t.optedOutNote : t.receiving}</p>
      {optOut.isError && <Alert type="error" showIcon title={optOut.error.message} style={{ marginBottom: 8 }} />}
      {!out && (
        <Button
          block
          size="large"
          className="patient-touch"
          loading={optOut.isPending}
          onClick={() =>
            modal.confirm({
              title: t.confirmTitle,
              content: t.confirmText,
              okText: t.ok,
              okButtonProps: { danger: true },
              cancelText: t.cancel,
              onOk: () => optOut.mutate(),
            })
          }
        >
          {t.optOut}
        </Button>
      )}
    </section>
  );
}
