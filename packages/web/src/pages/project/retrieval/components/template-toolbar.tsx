import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DeleteOutlined, SaveOutlined } from '@ant-design/icons';
import { App, Button, Form, Input, Modal, Popconfirm, Select, Space, Switch } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { searchApi, type SearchDics, type SearchTemplate } from '../../../../api/search.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import { toColumn, toConditions, type Draft } from '../search-draft';

const t = RETRIEVAL_TEXT;

export interface TemplateToolbarProps {
  studyId: number;
  dics: SearchDics | undefined;
  /** The conditions and columns on the page, saved as a template. */
  draft: Draft;
  columns: string[];
  /** The template last loaded or saved, until 重置. */
  templateId: number | undefined;
  onTemplateId: (id: number | undefined) => void;
  /** Puts a chosen template's conditions and columns on the page. */
  onLoad: (template: SearchTemplate) => void;
  /** The page's other actions, after the templates' (导出). */
  children?: ReactNode;
}

/** The page's toolbar: 检索模板 to load, 删除模板, 保存为模板 with its dialog, then the children. */
export function TemplateToolbar(props: TemplateToolbarProps) {
  const { studyId, dics, draft, columns, templateId, onTemplateId, onLoad, children } = props;
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const [templateForm] = Form.useForm<{ name: string; shared: boolean }>();

  const templatesQuery = useQuery({
    queryKey: queryKeys.search.templates(studyId),
    queryFn: () => searchApi.templates(studyId).then((res) => res.data),
  });
  const templates = templatesQuery.data ?? [];
  const chosenTemplate = templates.find((x) => x.id === templateId);

  const saveTemplate = useMutation({
    mutationFn: (body: Parameters<typeof searchApi.saveTemplate>[0]) => searchApi.saveTemplate(body),
    onSuccess: async (res) => {
      message.success(t.saved);
      setSaving(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.search.templates(studyId) });
      onTemplateId(res.data.id);
    },
  });
  const removeTemplate = useMutation({
    mutationFn: (id: number) => searchApi.removeTemplate(id),
    onSuccess: async () => {
      message.success(t.removed);
      onTemplateId(undefined);
      await queryClient.invalidateQueries({ queryKey: queryKeys.search.templates(studyId) });
    },
  });

  const load = (id: number) => {
    const template = templates.find((x) => x.id === id);
    if (!template) return;
    onTemplateId(id);
    onLoad(template);
    void message.success(t.templateLoaded(template.name));
  };
  const openSave = () => {
    if (!dics) return;
    const conditions = toConditions(dics, draft);
    if (typeof conditions === 'string') {
      void message.warning(conditions);
      return;
    }
    templateForm.setFieldsValue({ name: '', shared: false });
    setSaving(true);
  };

  return (
    <>
      <Space wrap className="retrieval-toolbar">
        <Select
          aria-label={t.templates}
          className="retrieval-template"
          placeholder={t.templatePlaceholder}
          value={templateId}
          onChange={load}
          options={templates.map((x) => ({
            value: x.id,
            label: x.shared ? `${x.name}（${t.templateShared}）` : x.name,
            title: t.templateOwner(x.ownerName),
          }))}
        />
        {chosenTemplate?.canDelete && (
          <Popconfirm
            title={t.confirmRemoveTemplate(chosenTemplate.name)}
            onConfirm={() => removeTemplate.mutate(chosenTemplate.id)}
          >
            <Button icon={<DeleteOutlined aria-hidden />}>{t.removeTemplate}</Button>
          </Popconfirm>
        )}
        <Button icon={<SaveOutlined aria-hidden />} onClick={openSave} disabled={!dics}>
          {t.saveTemplate}
        </Button>
        {children}
      </Space>

      <Modal
        open={saving}
        title={t.saveTemplate}
        okText={COMMON_TEXT.save}
        confirmLoading={saveTemplate.isPending}
        onCancel={() => setSaving(false)}
        onOk={() => void templateForm.submit()}
        destroyOnHidden
      >
        <Form
          form={templateForm}
          layout="vertical"
          name="search-template"
          onFinish={(values) => {
            const conditions = dics ? toConditions(dics, draft) : null;
            if (!conditions || typeof conditions === 'string') return;
            saveTemplate.mutate({
              studyId,
              name: values.name,
              shared: values.shared,
              conditions,
              columns: columns.map(toColumn),
            });
          }}
        >
          <Form.Item
            label={t.templateName}
            name="name"
            rules={[{ required: true, whitespace: true, message: t.templateNameRequired }, { max: 50 }]}
          >
            <Input maxLength={50} />
          </Form.Item>
          <Form.Item label={t.share} name="shared" valuePropName="checked">
            <Switch />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
