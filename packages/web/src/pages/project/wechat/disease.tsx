import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, Modal, Result, Table, Typography, message } from 'antd';
import { hasPermission, MSG } from '@ecrf/core';
import { useSession } from '../../../stores/session.store';
import { formatDate } from '../../../utils/format-date';
import { useProjectStudyId } from '../use-project-study';
import { wechatApi, type DiseaseNote } from './wechat.api';
import { WX } from './texts';
import './wechat.css';

/**
 * 公众号病种 (/project/{id}/wechat/disease): disease education for the patient side. Each of the study's diseases
 * gets a title and a plain text that a bound patient of that disease reads on the mobile home page.
 */
export default function WechatDiseasePage() {
  const studyId = useProjectStudyId();
  const mayConfigure = hasPermission(
    useSession((s) => s.permissions),
    'study:config',
  );
  const client = useQueryClient();
  const [editing, setEditing] = useState<DiseaseNote | null>(null);
  const [form] = Form.useForm<{ title: string; content: string }>();
  const notes = useQuery({
    queryKey: ['wechat', 'disease', studyId],
    enabled: studyId !== null,
    queryFn: () => wechatApi.diseases(studyId!).then((res) => res.data),
  });
  const save = useMutation({
    mutationFn: (values: { title: string; content: string }) =>
      wechatApi.saveDisease({ studyId: studyId!, diseaseCode: editing!.diseaseCode, ...values }),
    onSuccess: (res) => {
      client.setQueryData(['wechat', 'disease', studyId], res.data);
      setEditing(null);
      void message.success(WX.saved);
    },
  });
  if (studyId === null || notes.isError) {
    return (
      <div className="page-card">
        <Result status="warning" title={MSG.forbidden} />
      </div>
    );
  }
  return (
    <div className="page-card">
      <h2 className="page-title">{WX.disease}</h2>
      <Typography.Paragraph type="secondary">{WX.diseaseHint}</Typography.Paragraph>
      <Table<DiseaseNote>
        rowKey="diseaseCode"
        loading={notes.isLoading}
        dataSource={notes.data ?? []}
        pagination={false}
        columns={[
          { title: WX.diseaseName, dataIndex: 'diseaseName', width: 160 },
          { title: WX.diseaseCode, dataIndex: 'diseaseCode', width: 120 },
          {
            title: WX.noteTitle,
            dataIndex: 'title',
            render: (title: string) => title || <Typography.Text type="secondary">{WX.noteEmpty}</Typography.Text>,
          },
          {
            title: '更新时间',
            dataIndex: 'updateTime',
            width: 170,
            render: (value: string | null) => (value ? formatDate(value) : ''),
          },
          {
            title: WX.actions,
            key: 'actions',
            width: 90,
            render: (_: unknown, row) => (
              <Button
                type="link"
                disabled={!mayConfigure}
                onClick={() => {
                  setEditing(row);
                  form.setFieldsValue({ title: row.title || row.diseaseName, content: row.content });
                }}
              >
                {WX.edit}
              </Button>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== null}
        title={`${WX.editNote}：${editing?.diseaseName ?? ''}`}
        onCancel={() => setEditing(null)}
        onOk={() => form.submit()}
        confirmLoading={save.isPending}
        destroyOnHidden
        forceRender
      >
        <Form form={form} layout="vertical" onFinish={(values) => save.mutate(values)}>
          <Form.Item name="title" label={WX.noteTitle} rules={[{ required: true, message: WX.titleRequired }]}>
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item name="content" label={WX.noteContent}>
            <Input.TextArea rows={8} maxLength={5000} showCount />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}
