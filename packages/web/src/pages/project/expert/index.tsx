import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Button, Form, Input, Modal, Popconfirm, Space, Table, Upload, message } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { ContentToolbar, useContentList } from '../content-list';
import { expertApi, knowledgeApi, type Expert } from '../knowledge/content.api';
import { CT } from '../knowledge/texts';
import { useContentStudy } from '../knowledge/use-content-study';
import '../knowledge/content.css';

const MANAGE = 'project.expert.manage';

type ExpertForm = Omit<Expert, 'id' | 'photoKey' | 'photoUrl' | 'sort'>;

/** 医生管理 (/project/expert): the study's doctors shown to its patients; changes need 管理医生. */
export default function ExpertPage() {
  const study = useContentStudy();
  const { studyId, can } = study;
  const [editing, setEditing] = useState<Expert | 'new' | null>(null);
  const mayEdit = can(MANAGE);
  const content = useContentList<Expert>({
    study,
    key: 'expert',
    fetch: expertApi.list,
    remove: (id, row) => expertApi.remove(id, row.id),
  });
  const { remove, refresh } = content;
  return (
    <div className="page-card">
      <h2 className="page-title">{CT.expertTitle}</h2>
      <ContentToolbar
        study={study}
        list={content}
        addText={CT.expertAdd}
        mayAdd={mayEdit}
        onAdd={() => setEditing('new')}
      />
      <Table<Expert>
        {...content.table}
        scroll={{ x: 1000 }}
        columns={[
          {
            title: CT.photo,
            dataIndex: 'photoUrl',
            width: 80,
            render: (url: string | null, row) =>
              url ? <img className="content-photo" src={url} alt={row.name} /> : null,
          },
          { title: CT.name, dataIndex: 'name', width: 100 },
          { title: CT.jobTitle, dataIndex: 'title', width: 110 },
          { title: CT.hospital, dataIndex: 'hospital', width: 160, ellipsis: true },
          { title: CT.department, dataIndex: 'department', width: 110 },
          { title: CT.specialty, dataIndex: 'specialty', ellipsis: true },
          {
            title: CT.actions,
            key: 'actions',
            width: 150,
            fixed: 'right',
            render: (_: unknown, row) => (
              <Space size={0}>
                <Button type="link" disabled={!mayEdit} onClick={() => setEditing(row)}>
                  {CT.edit}
                </Button>
                <Popconfirm title={CT.removeConfirm} disabled={!mayEdit} onConfirm={() => remove.mutate(row)}>
                  <Button type="link" danger disabled={!mayEdit}>
                    {CT.remove}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing !== null && studyId !== null && (
        <ExpertDialog
          studyId={studyId}
          expert={editing === 'new' ? null : editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void refresh();
          }}
        />
      )}
    </div>
  );
}

function ExpertDialog(props: { studyId: number; expert: Expert | null; onClose: (saved: boolean) => void }) {
  const { studyId, expert } = props;
  const [form] = Form.useForm<ExpertForm>();
  const [photo, setPhoto] = useState<{ key: string; url: string } | null>(
    expert?.photoKey ? { key: expert.photoKey, url: expert.photoUrl! } : null,
  );
  const save = useMutation({
    mutationFn: async () => {
      const values = await form.validateFields();
      const body = { ...values, studyId, photoKey: photo?.key ?? null };
      return expert ? expertApi.edit(expert.id, body) : expertApi.add(body);
    },
    onSuccess: () => {
      void message.success(CT.saved);
      props.onClose(true);
    },
  });
  return (
    <Modal
      open
      width={640}
      title={expert ? CT.expertEdit : CT.expertAdd}
      okText={CT.confirm}
      cancelText={CT.cancel}
      confirmLoading={save.isPending}
      onOk={() => save.mutate()}
      onCancel={() => props.onClose(false)}
    >
      <Form<ExpertForm> form={form} layout="vertical" initialValues={expert ?? {}}>
        <Form.Item name="name" label={CT.name} rules={[{ required: true, whitespace: true, message: CT.nameRequired }]}>
          <Input maxLength={30} />
        </Form.Item>
        <Form.Item label={CT.photo}>
          <Space>
            {photo && <img className="content-photo" src={photo.url} alt={CT.photo} />}
            <Upload
              accept="image/png,image/jpeg,image/gif,image/webp"
              showUploadList={false}
              beforeUpload={(file) => {
                void knowledgeApi
                  .uploadImage(studyId, file)
                  .then((r) => setPhoto({ key: r.data.fileKey, url: r.data.url }));
                return false;
              }}
            >
              <Button icon={<UploadOutlined />}>{CT.upload}</Button>
            </Upload>
          </Space>
        </Form.Item>
        <Space size={16} wrap>
          <Form.Item name="title" label={CT.jobTitle}>
            <Input maxLength={30} style={{ width: 170 }} />
          </Form.Item>
          <Form.Item name="hospital" label={CT.hospital}>
            <Input maxLength={60} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="department" label={CT.department}>
            <Input maxLength={60} style={{ width: 170 }} />
          </Form.Item>
        </Space>
        <Form.Item name="specialty" label={CT.specialty}>
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item name="introduction" label={CT.introduction}>
          <Input.TextArea rows={4} maxLength={5000} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
