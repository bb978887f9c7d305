import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { App, Button, Checkbox, Form, Input, Modal, Select, Space } from 'antd';
import { knowledgeApi, type Article, type ArticleStatus } from '../../../api/content.api';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { ContentImageField, type UploadedImage } from '../components/content-dialogs';
import { RichTextEditor } from './rich-text-editor';

interface FormValues {
  typeId: number;
  title: string;
  summary?: string;
  content: string;
  platform: boolean;
}

/** 新增文章 / 编辑文章: written in the rich-text editor, saved as a draft or published. */
export function ArticleDialog(props: {
  studyId: number;
  article: Article | null;
  types: { id: number; name: string }[];
  platformEditor: boolean;
  onClose: (saved: boolean) => void;
}) {
  const { studyId, article } = props;
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();
  const [cover, setCover] = useState<UploadedImage | null>(
    article?.coverKey ? { key: article.coverKey, url: article.coverUrl! } : null,
  );
  const save = useMutation({
    mutationFn: async (status: ArticleStatus) => {
      const values = await form.validateFields();
      const body = {
        studyId,
        platform: values.platform ?? false,
        typeId: values.typeId,
        title: values.title,
        summary: values.summary ?? null,
        coverKey: cover?.key ?? null,
        content: values.content,
        status,
      };
      return article ? knowledgeApi.edit(article.id, body) : knowledgeApi.add(body);
    },
    onSuccess: () => {
      void message.success(CONTENT_TEXT.saved);
      props.onClose(true);
    },
  });
  const uploadImage = (file: File) => knowledgeApi.uploadImage(studyId, file).then((r) => r.data.url);
  return (
    <Modal
      open
      width={860}
      title={article ? CONTENT_TEXT.articleEdit : CONTENT_TEXT.articleAdd}
      onCancel={() => props.onClose(false)}
      footer={
        <Space>
          <Button onClick={() => props.onClose(false)}>{CONTENT_TEXT.cancel}</Button>
          <Button loading={save.isPending} onClick={() => save.mutate('draft')}>
            {CONTENT_TEXT.saveDraft}
          </Button>
          <Button type="primary" loading={save.isPending} onClick={() => save.mutate('published')}>
            {CONTENT_TEXT.publish}
          </Button>
        </Space>
      }
    >
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={{
          typeId: article?.typeId,
          title: article?.title,
          summary: article?.summary ?? undefined,
          content: article?.content ?? '',
          platform: article?.platform ?? false,
        }}
      >
        <Space size={16} align="start" wrap>
          <Form.Item
            name="typeId"
            label={CONTENT_TEXT.type}
            rules={[{ required: true, message: CONTENT_TEXT.typeRequired }]}
          >
            <Select style={{ width: 180 }} options={props.types.map((x) => ({ value: x.id, label: x.name }))} />
          </Form.Item>
          <Form.Item
            name="title"
            label={CONTENT_TEXT.title}
            rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.titleRequired }]}
          >
            <Input style={{ width: 420 }} maxLength={100} />
          </Form.Item>
          {props.platformEditor && (
            <Form.Item name="platform" label={CONTENT_TEXT.scope} valuePropName="checked">
              <Checkbox>{CONTENT_TEXT.platform}</Checkbox>
            </Form.Item>
          )}
        </Space>
        <Form.Item name="summary" label={CONTENT_TEXT.summary}>
          <Input.TextArea rows={2} maxLength={200} />
        </Form.Item>
        <ContentImageField
          studyId={studyId}
          label={CONTENT_TEXT.cover}
          className="content-cover"
          image={cover}
          onChange={setCover}
        />
        <Form.Item
          name="content"
          label={CONTENT_TEXT.content}
          rules={[{ required: true, message: CONTENT_TEXT.contentRequired }]}
        >
          <RichTextEditor uploadImage={uploadImage} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
