import { useMutation } from '@tanstack/react-query';
import { Alert, Form, Input, Modal } from 'antd';
import { amendmentApi, type ImpactSummary } from '../../../../api/amendment.api';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';

/**
 * 发布草稿: the draft becomes the CRF's current version and an amendment named by the manager (its name is the
 * audit reason of every record later moved). Records stay on their version until 迁移数据.
 */
export function PublishDialog({
  open,
  studyId,
  crfId,
  summary,
  onClose,
  onPublished,
}: {
  open: boolean;
  studyId: number;
  crfId: number;
  summary: ImpactSummary | undefined;
  onClose: () => void;
  onPublished: (published: { amendmentId: number; version: number }) => void;
}) {
  const [form] = Form.useForm<{ name: string }>();
  const publish = useMutation({
    mutationFn: (name: string) => amendmentApi.publish({ studyId, crfId, name }),
    onSuccess: (res) => onPublished(res.data),
  });
  return (
    <Modal
      open={open}
      title={AMENDMENT_TEXT.publishTitle}
      okText={AMENDMENT_TEXT.publish}
      confirmLoading={publish.isPending}
      onOk={() =>
        void form
          .validateFields()
          .then((values) => publish.mutate(values.name.trim()))
          // The form shows what is missing.
          .catch(() => undefined)
      }
      onCancel={onClose}
      afterClose={() => form.resetFields()}
      destroyOnHidden
    >
      <Alert type="info" showIcon title={AMENDMENT_TEXT.publishHint} style={{ marginBottom: 12 }} />
      {summary && (
        <p className="study-section-hint">
          {AMENDMENT_TEXT.publishSummary(summary.records.total, summary.records.changed)}
        </p>
      )}
      <Form form={form} layout="vertical" preserve={false}>
        <Form.Item
          name="name"
          label={AMENDMENT_TEXT.amendmentName}
          rules={[{ required: true, whitespace: true, message: AMENDMENT_TEXT.amendmentNameRequired }]}
        >
          <Input maxLength={100} placeholder={AMENDMENT_TEXT.amendmentNamePlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
