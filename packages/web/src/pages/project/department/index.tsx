import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Empty, Form, Input, Modal, Space, Typography, message } from 'antd';
import { ContentToolbar } from '../content-list';
import { hospitalApi, type Hospital } from '../knowledge/content.api';
import { CT } from '../knowledge/texts';
import { useContentStudy } from '../knowledge/use-content-study';
import '../knowledge/content.css';

const MANAGE = 'project.department.manage';
type HospitalForm = Omit<Hospital, 'id' | 'sort'>;

/** 项目介绍 (/project/department): the study's sites with introduction, address and contact; changes need 管理项目介绍. */
export default function DepartmentPage() {
  const study = useContentStudy();
  const { studyId, can } = study;
  const [editing, setEditing] = useState<Hospital | 'new' | null>(null);
  const client = useQueryClient();
  const mayEdit = can(MANAGE);
  const list = useQuery({
    queryKey: ['hospital', 'list', studyId],
    enabled: studyId !== null,
    queryFn: () => hospitalApi.list(studyId!).then((r) => r.data),
  });
  return (
    <div className="page-card">
      <h2 className="page-title">{CT.departmentTitle}</h2>
      <ContentToolbar study={study} addText={CT.hospitalAdd} mayAdd={mayEdit} onAdd={() => setEditing('new')} />
      {list.data && list.data.length === 0 && <Empty description={CT.noHospital} />}
      {(list.data ?? []).map((h) => (
        <Card
          key={h.id}
          className="hospital-card"
          title={h.name}
          extra={
            <Button type="link" disabled={!mayEdit} onClick={() => setEditing(h)}>
              {CT.edit}
            </Button>
          }
        >
          <Descriptions column={{ xs: 1, md: 3 }} size="small">
            <Descriptions.Item label={CT.address}>{h.address}</Descriptions.Item>
            <Descriptions.Item label={CT.contact}>{h.contact}</Descriptions.Item>
            <Descriptions.Item label={CT.phone}>{h.phone}</Descriptions.Item>
          </Descriptions>
          {h.introduction && (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap' }}>{h.introduction}</Typography.Paragraph>
          )}
        </Card>
      ))}
      {editing !== null && studyId !== null && (
        <HospitalDialog
          studyId={studyId}
          hospital={editing === 'new' ? null : editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void client.invalidateQueries({ queryKey: ['hospital', 'list'] });
          }}
        />
      )}
    </div>
  );
}

function HospitalDialog(props: { studyId: number; hospital: Hospital | null; onClose: (saved: boolean) => void }) {
  const { studyId, hospital } = props;
  const [form] = Form.useForm<HospitalForm>();
  const save = useMutation({
    mutationFn: async () => {
      const values = await form.validateFields();
      const body = { ...values, studyId };
      return hospital ? hospitalApi.edit(hospital.id, body) : hospitalApi.add(body);
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
      title={hospital ? CT.hospitalEdit : CT.hospitalAdd}
      okText={CT.confirm}
      cancelText={CT.cancel}
      confirmLoading={save.isPending}
      onOk={() => save.mutate()}
      onCancel={() => props.onClose(false)}
    >
      <Form<HospitalForm> form={form} layout="vertical" initialValues={hospital ?? {}}>
        <Form.Item
          name="name"
          label={CT.hospitalName}
          rules={[{ required: true, whitespace: true, message: CT.hospitalNameRequired }]}
        >
          <Input maxLength={60} />
        </Form.Item>
        <Form.Item name="address" label={CT.address}>
          <Input maxLength={200} />
        </Form.Item>
        <Space size={16} wrap>
          <Form.Item name="contact" label={CT.contact}>
            <Input maxLength={30} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="phone" label={CT.phone}>
            <Input maxLength={30} style={{ width: 200 }} />
          </Form.Item>
        </Space>
        <Form.Item name="introduction" label={CT.hospitalIntro}>
          <Input.TextArea rows={5} maxLength={5000} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
