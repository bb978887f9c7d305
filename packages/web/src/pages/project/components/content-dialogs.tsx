import type { ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { App, Button, Form, Modal, Space, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { knowledgeApi } from '../../../api/content.api';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';

interface ContentSaveDialogProps {
  title: string;
  width?: number;
  /** Checks the form and sends it; a refusal (failed rules, the server's error) keeps the dialog open. */
  save: () => Promise<unknown>;
  /** The success message (已保存 by default). */
  savedText?: string;
  onClose: (saved: boolean) => void;
  children: ReactNode;
}

/** The add/edit dialog of a content page (doctors, sites, medical records): 确定 saves, then it closes as saved. */
export function ContentSaveDialog({
  title,
  width,
  save,
  savedText = CONTENT_TEXT.saved,
  onClose,
  children,
}: ContentSaveDialogProps) {
  const { message } = App.useApp();
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: () => {
      void message.success(savedText);
      onClose(true);
    },
  });
  return (
    <Modal
      open
      width={width}
      title={title}
      okText={CONTENT_TEXT.confirm}
      cancelText={CONTENT_TEXT.cancel}
      confirmLoading={mutation.isPending}
      onOk={() => mutation.mutate()}
      onCancel={() => onClose(false)}
    >
      {children}
    </Modal>
  );
}

export interface UploadedImage {
  key: string;
  url: string;
}

/** A picture of a content dialog (a doctor's photo, an article's cover): shown, and replaced by an upload. */
export function ContentImageField({
  studyId,
  label,
  className,
  image,
  onChange,
}: {
  studyId: number;
  /** The field's label, also the picture's text alternative. */
  label: string;
  className: string;
  image: UploadedImage | null;
  onChange: (image: UploadedImage) => void;
}) {
  return (
    <Form.Item label={label}>
      <Space>
        {image && <img className={className} src={image.url} alt={label} />}
        <Upload
          accept="image/png,image/jpeg,image/gif,image/webp"
          showUploadList={false}
          beforeUpload={(file) => {
            void knowledgeApi
              .uploadImage(studyId, file)
              .then((r) => onChange({ key: r.data.fileKey, url: r.data.url }));
            return false;
          }}
        >
          <Button icon={<UploadOutlined />}>{CONTENT_TEXT.upload}</Button>
        </Upload>
      </Space>
    </Form.Item>
  );
}
