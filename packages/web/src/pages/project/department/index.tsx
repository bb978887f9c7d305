import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Empty, Form, Input, Space, Typography } from 'antd';
import { hospitalApi, type Hospital, type HospitalBody } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { ContentSaveDialog } from '../components/content-dialogs';
import { StudyAddButton } from '../components/picked-study-table';
import { useDialogRow } from '../components/use-dialog-row';
import { StudyPicker, usePickedStudy } from '../picked-study';
import '../knowledge/content.css';

const MANAGE = 'project.department.manage';
type HospitalForm = Omit<HospitalBody, 'studyId' | 'sort'>;

/**
 * 项目介绍 (/project/department): the study's sites with introduction, address and contact; changes need 管理项目介绍.
 * Not a table: each site is a card whose introduction runs to paragraphs, as its patients read it, and a study has
 * a handful of sites, so there is nothing to page or search.
 */
export default function DepartmentPage() {
  const study = usePickedStudy();
  const { studyId, can } = study;
  const client = useQueryClient();
  const mayEdit = can(MANAGE);
  const [editing, setEditing, closeEditing] = useDialogRow<Hospital | 'new'>(() =>
    client.invalidateQueries({ queryKey: queryKeys.hospital.all() }),
  );
  const list = useQuery({
    queryKey: queryKeys.hospital.list(studyId),
    enabled: studyId !== null,
    queryFn: () => hospitalApi.list(studyId!).then((r) => r.data),
  });
  return (
    <div className="page-card">
      <h2 className="page-title">{CONTENT_TEXT.departmentTitle}</h2>
      <StudyPicker study={study} label={CONTENT_TEXT.study} placeholder={CONTENT_TEXT.studyPlaceholder} width={260}>
        <StudyAddButton
          label={CONTENT_TEXT.hospitalAdd}
          allowed={mayEdit}
          studyId={studyId}
          onClick={() => setEditing('new')}
        />
      </StudyPicker>
      {list.data && list.data.length === 0 && <Empty description={CONTENT_TEXT.noHospital} />}
      {(list.data ?? []).map((h) => (
        <Card
          key={h.id}
          className="hospital-card"
          title={h.name}
          extra={
            <Button type="link" disabled={!mayEdit} onClick={() => setEditing(h)}>
              {CONTENT_TEXT.edit}
            </Button>
          }
        >
          <Descriptions column={{ xs: 1, md: 3 }} size="small">
            <Descriptions.Item label={CONTENT_TEXT.address}>{h.address}</Descriptions.Item>
            <Descriptions.Item label={CONTENT_TEXT.contact}>{h.contact}</Descriptions.Item>
            <Descriptions.Item label={CONTENT_TEXT.phone}>{h.phone}</Descriptions.Item>
          </Descriptions>
          {h.introduction && (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap' }}>{h.introduction}</Typography.Paragraph>
          )}
        </Card>
      ))}
      {editing !== null && studyId !== null && (
        <HospitalDialog studyId={studyId} hospital={editing === 'new' ? null : editing} onClose={closeEditing} />
      )}
    </div>
  );
}

function HospitalDialog(props: { studyId: number; hospital: Hospital | null; onClose: (saved: boolean) => void }) {
  const { studyId, hospital } = props;
  const [form] = Form.useForm<HospitalForm>();
  const save = async () => {
    const values = await form.validateFields();
    const body = { ...values, studyId };
    return hospital ? hospitalApi.edit(hospital.id, body) : hospitalApi.add(body);
  };
  return (
    <ContentSaveDialog
      width={640}
      title={hospital ? CONTENT_TEXT.hospitalEdit : CONTENT_TEXT.hospitalAdd}
      save={save}
      onClose={props.onClose}
    >
      <Form<HospitalForm> form={form} layout="vertical" initialValues={hospital ?? {}}>
        <Form.Item
          name="name"
          label={CONTENT_TEXT.hospitalName}
          rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.hospitalNameRequired }]}
        >
          <Input maxLength={60} />
        </Form.Item>
        <Form.Item name="address" label={CONTENT_TEXT.address}>
          <Input maxLength={200} />
        </Form.Item>
        <Space size={16} wrap>
          <Form.Item name="contact" label={CONTENT_TEXT.contact}>
            <Input maxLength={30} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="phone" label={CONTENT_TEXT.phone}>
            <Input maxLength={30} style={{ width: 200 }} />
          </Form.Item>
        </Space>
        <Form.Item name="introduction" label={CONTENT_TEXT.hospitalIntro}>
          <Input.TextArea rows={5} maxLength={5000} />
        </Form.Item>
      </Form>
    </ContentSaveDialog>
  );
}
