import { Form, Input } from 'antd';
import { STUDY_STATUS } from '../../../api/study.api';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';

/**
 * A study set back from 已结束 to 进行中 is reopened: its data were frozen, so the reason goes on the audit trail
 * (docs/multi-centre.md). Shown only for that change; the server asks the same.
 */
export function ReopenReasonField({ storedStatus }: { storedStatus: number | undefined }) {
  const form = Form.useFormInstance();
  const status = Form.useWatch('status', form) as number | undefined;
  if (storedStatus !== STUDY_STATUS.finished || status !== STUDY_STATUS.ongoing) return null;
  return (
    <Form.Item
      label={STUDY_TEXT.reopenReason}
      name="reason"
      extra={STUDY_TEXT.reopenHint}
      rules={[{ required: true, whitespace: true, message: STUDY_TEXT.reopenReasonRequired }]}
    >
      <Input.TextArea rows={2} maxLength={500} showCount />
    </Form.Item>
  );
}
