import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Checkbox, Form, Input, Modal, Popconfirm, Select, Space, Table, Tag, Upload, message } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { hasPermission } from '@ecrf/core';
import { formatDate } from '../../../utils/format-date';
import { ContentToolbar, useContentList } from '../content-list';
import { STUDY_MANAGE } from '../study-access';
import { knowledgeApi, type Article, type ArticleStatus } from './content.api';
import { RichTextEditor } from './rich-text-editor';
import { CT } from './texts';
import { useContentStudy } from './use-content-study';
import './content.css';

const MANAGE = 'project.knowledge.manage';

interface FormValues {
  typeId: number;
  title: string;
  summary?: string;
  content: string;
  platform: boolean;
}

/**
 * 知识库 (/project/knowledge): the study's articles and the platform's, drafts included. Editors with 管理知识库
 * write articles in the rich-text editor and publish them to the patients' reading page (/m/knowledge).
 */
export default function KnowledgePage() {
  const study = useContentStudy();
  const { studyId, can, permissions } = study;
  const [typeId, setTypeId] = useState<number | undefined>();
  const [status, setStatus] = useState<ArticleStatus | undefined>();
  const [editing, setEditing] = useState<Article | 'new' | null>(null);
  const mayEdit = can(MANAGE);
  const platformEditor = hasPermission(permissions, STUDY_MANAGE);

  const types = useQuery({ queryKey: ['knowledge', 'types'], queryFn: () => knowledgeApi.types().then((r) => r.data) });
  const content = useContentList<Article>({
    study,
    key: 'knowledge',
    filters: [typeId, status],
    fetch: ({ keyword, ...page }) => knowledgeApi.list({ ...page, typeId, status, keyword }),
    remove: (id, row) => knowledgeApi.remove(id, row.id),
  });
  const { remove, refresh } = content;
  const open = async (row: Article) => {
    const full = await knowledgeApi.get(studyId!, row.id);
    setEditing(full.data);
  };
  const rowEditable = (row: Article) => (row.platform ? platformEditor : mayEdit);

  return (
    <div className="page-card">
      <h2 className="page-title">{CT.knowledgeTitle}</h2>
      <ContentToolbar
        study={study}
        list={content}
        keywordWidth={180}
        addText={CT.articleAdd}
        mayAdd={mayEdit}
        onAdd={() => setEditing('new')}
      >
        <Select
          aria-label={CT.type}
          style={{ width: 140 }}
          value={typeId ?? 0}
          options={[
            { value: 0, label: CT.allTypes },
            ...(types.data ?? []).map((x) => ({ value: x.id, label: x.name })),
          ]}
          onChange={(v: number) => {
            setTypeId(v || undefined);
            content.firstPage();
          }}
        />
        <Select
          aria-label={CT.status}
          style={{ width: 120 }}
          value={status ?? ''}
          options={[
            { value: '', label: CT.allStatus },
            { value: 'draft', label: CT.draft },
            { value: 'published', label: CT.published },
          ]}
          onChange={(v: ArticleStatus | '') => {
            setStatus(v || undefined);
            content.firstPage();
          }}
        />
      </ContentToolbar>
      <Table<Article>
        {...content.table}
        scroll={{ x: 900 }}
        columns={[
          {
            title: CT.cover,
            dataIndex: 'coverUrl',
            width: 120,
            render: (url: string | null) => (url ? <img className="content-cover" src={url} alt={CT.cover} /> : null),
          },
          { title: CT.title, dataIndex: 'title', ellipsis: true },
          { title: CT.type, dataIndex: 'typeName', width: 110 },
          {
            title: CT.scope,
            dataIndex: 'platform',
            width: 90,
            render: (p: boolean) => (p ? CT.platform : CT.thisStudy),
          },
          {
            title: CT.status,
            dataIndex: 'status',
            width: 90,
            render: (s: ArticleStatus) =>
              s === 'published' ? <Tag color="green">{CT.published}</Tag> : <Tag>{CT.draft}</Tag>,
          },
          { title: CT.updateTime, dataIndex: 'updateTime', width: 170, render: (v: string) => formatDate(v) },
          {
            title: CT.actions,
            key: 'actions',
            width: 210,
            fixed: 'right',
            render: (_: unknown, row) => (
              <Space size={0}>
                <Button type="link" disabled={!rowEditable(row)} onClick={() => void open(row)}>
                  {CT.edit}
                </Button>
                {row.status === 'published' && (
                  <Button type="link" href={`/m/knowledge/${row.id}`} target="_blank">
                    {CT.preview}
                  </Button>
                )}
                <Popconfirm title={CT.removeConfirm} disabled={!rowEditable(row)} onConfirm={() => remove.mutate(row)}>
                  <Button type="link" danger disabled={!rowEditable(row)}>
                    {CT.remove}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing !== null && studyId !== null && (
        <ArticleDialog
          studyId={studyId}
          article={editing === 'new' ? null : editing}
          types={types.data ?? []}
          platformEditor={platformEditor}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void refresh();
          }}
        />
      )}
    </div>
  );
}

function ArticleDialog(props: {
  studyId: number;
  article: Article | null;
  types: { id: number; name: string }[];
  platformEditor: boolean;
  onClose: (saved: boolean) => void;
}) {
  const { studyId, article } = props;
  const [form] = Form.useForm<FormValues>();
  const [cover, setCover] = useState<{ key: string; url: string } | null>(
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
      void message.success(CT.saved);
      props.onClose(true);
    },
  });
  const uploadImage = (file: File) => knowledgeApi.uploadImage(studyId, file).then((r) => r.data.url);
  return (
    <Modal
      open
      width={860}
      title={article ? CT.articleEdit : CT.articleAdd}
      onCancel={() => props.onClose(false)}
      footer={
        <Space>
          <Button onClick={() => props.onClose(false)}>{CT.cancel}</Button>
          <Button loading={save.isPending} onClick={() => save.mutate('draft')}>
            {CT.saveDraft}
          </Button>
          <Button type="primary" loading={save.isPending} onClick={() => save.mutate('published')}>
            {CT.publish}
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
          <Form.Item name="typeId" label={CT.type} rules={[{ required: true, message: CT.typeRequired }]}>
            <Select style={{ width: 180 }} options={props.types.map((x) => ({ value: x.id, label: x.name }))} />
          </Form.Item>
          <Form.Item
            name="title"
            label={CT.title}
            rules={[{ required: true, whitespace: true, message: CT.titleRequired }]}
          >
            <Input style={{ width: 420 }} maxLength={100} />
          </Form.Item>
          {props.platformEditor && (
            <Form.Item name="platform" label={CT.scope} valuePropName="checked">
              <Checkbox>{CT.platform}</Checkbox>
            </Form.Item>
          )}
        </Space>
        <Form.Item name="summary" label={CT.summary}>
          <Input.TextArea rows={2} maxLength={200} />
        </Form.Item>
        <Form.Item label={CT.cover}>
          <Space>
            {cover && <img className="content-cover" src={cover.url} alt={CT.cover} />}
            <Upload
              accept="image/png,image/jpeg,image/gif,image/webp"
              showUploadList={false}
              beforeUpload={(file) => {
                void knowledgeApi
                  .uploadImage(studyId, file)
                  .then((r) => setCover({ key: r.data.fileKey, url: r.data.url }));
                return false;
              }}
            >
              <Button icon={<UploadOutlined />}>{CT.upload}</Button>
            </Upload>
          </Space>
        </Form.Item>
        <Form.Item name="content" label={CT.content} rules={[{ required: true, message: CT.contentRequired }]}>
          <RichTextEditor uploadImage={uploadImage} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
