import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Modal, Result, Typography } from 'antd';
import { hasPermission, MSG } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { wechatApi, type DiseaseNote } from '../../../api/wechat.api';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { WECHAT_TEXT } from '../../../locales/wechat.zh-CN';
import { useSession } from '../../../stores/session.store';
import { useProjectStudyId } from '../use-project-study';
import './wechat.css';

/**
 * 公众号病种 (/project/{id}/wechat/disease): disease education for the patient side. Each of the study's diseases
 * gets a title and a plain text that a bound patient of that disease reads on the mobile home page. The study's
 * diseases are few and fixed by its setup: one table, neither searched nor paged.
 */
export default function WechatDiseasePage() {
  const studyId = useProjectStudyId();
  const mayConfigure = hasPermission(
    useSession((s) => s.permissions),
    'study:config',
  );
  const { message } = App.useApp();
  const client = useQueryClient();
  const [editing, setEditing] = useState<DiseaseNote | null>(null);
  const [form] = Form.useForm<{ title: string; content: string }>();
  const notes = useQuery({
    queryKey: queryKeys.wechat.diseases(studyId),
    enabled: studyId !== null,
    queryFn: () => wechatApi.diseases(studyId!).then((res) => res.data),
  });
  const save = useMutation({
    mutationFn: (values: { title: string; content: string }) =>
      wechatApi.saveDisease({ studyId: studyId!, diseaseCode: editing!.diseaseCode, ...values }),
    onSuccess: (res) => {
      client.setQueryData(queryKeys.wechat.diseases(studyId), res.data);
      setEditing(null);
      void message.success(WECHAT_TEXT.saved);
    },
  });
  if (studyId === null || notes.isError) {
    return (
      <div className="page-card">
        <Result status="warning" title={MSG.forbidden} />
      </div>
    );
  }

  const columns: PageColumn<DiseaseNote>[] = [
    { title: WECHAT_TEXT.diseaseName, dataIndex: 'diseaseName', width: 160 },
    { title: WECHAT_TEXT.diseaseCode, dataIndex: 'diseaseCode', width: 120 },
    {
      title: WECHAT_TEXT.noteTitle,
      dataIndex: 'title',
      minWidth: 200,
      text: (row) => row.title,
      render: (title: string) => title || <Typography.Text type="secondary">{WECHAT_TEXT.noteEmpty}</Typography.Text>,
    },
    {
      title: WECHAT_TEXT.updateTime,
      dataIndex: 'updateTime',
      kind: 'datetime',
    },
    actionsColumn<DiseaseNote>([
      {
        key: 'edit',
        label: WECHAT_TEXT.edit,
        allowed: mayConfigure,
        onClick: (row) => {
          setEditing(row);
          form.setFieldsValue({ title: row.title || row.diseaseName, content: row.content });
        },
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{WECHAT_TEXT.disease}</h2>
      <Typography.Paragraph type="secondary">{WECHAT_TEXT.diseaseHint}</Typography.Paragraph>
      <TablePage<DiseaseNote>
        name="wechat-disease"
        rowKey="diseaseCode"
        columns={columns}
        rows={notes.data ?? []}
        loading={notes.isLoading}
        paged={false}
      />
      <Modal
        open={editing !== null}
        title={`${WECHAT_TEXT.editNote}：${editing?.diseaseName ?? ''}`}
        onCancel={() => setEditing(null)}
        onOk={() => form.submit()}
        confirmLoading={save.isPending}
        destroyOnHidden
        forceRender
      >
        <Form form={form} layout="vertical" onFinish={(values) => save.mutate(values)}>
          <Form.Item
            name="title"
            label={WECHAT_TEXT.noteTitle}
            rules={[{ required: true, message: WECHAT_TEXT.titleRequired }]}
          >
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item name="content" label={WECHAT_TEXT.noteContent}>
            <Input.TextArea rows={8} maxLength={5000} showCount />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}
