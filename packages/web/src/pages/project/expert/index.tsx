import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Space } from 'antd';
import { expertApi, type Expert, type ExpertBody } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, type PageColumn } from '../../../components/table-page';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { ContentImageField, ContentSaveDialog, type UploadedImage } from '../components/content-dialogs';
import { PickedStudyTable, StudyAddButton } from '../components/picked-study-table';
import { useDialogRow } from '../components/use-dialog-row';
import { StudyPicker, usePickedStudy } from '../picked-study';
import '../knowledge/content.css';

const MANAGE = 'project.expert.manage';

type ExpertForm = Omit<ExpertBody, 'studyId' | 'photoKey' | 'sort'>;

interface Filters {
  keyword?: string;
}

/** 医生管理 (/project/expert): the study's doctors shown to its patients; changes need 管理医生. */
export default function ExpertPage() {
  const study = usePickedStudy();
  const { studyId, can } = study;
  const { message } = App.useApp();
  const client = useQueryClient();
  const mayEdit = can(MANAGE);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.expert.all() });
  const [editing, setEditing, closeEditing] = useDialogRow<Expert | 'new'>(refresh);
  const remove = useMutation({
    mutationFn: (row: Expert) => expertApi.remove(studyId!, row.id),
    onSuccess: () => {
      void message.success(CONTENT_TEXT.removed);
      void refresh();
    },
  });

  const columns: PageColumn<Expert>[] = [
    {
      title: CONTENT_TEXT.photo,
      dataIndex: 'photoUrl',
      width: 80,
      ellipsis: false,
      render: (url: string | null, row) => (url ? <img className="content-photo" src={url} alt={row.name} /> : null),
    },
    {
      title: CONTENT_TEXT.name,
      dataIndex: 'name',
      width: 100,
      search: { name: 'keyword', label: CONTENT_TEXT.keyword, width: 200 },
    },
    { title: CONTENT_TEXT.jobTitle, dataIndex: 'title', width: 110 },
    { title: CONTENT_TEXT.hospital, dataIndex: 'hospital', width: 160 },
    { title: CONTENT_TEXT.department, dataIndex: 'department', width: 110 },
    { title: CONTENT_TEXT.specialty, dataIndex: 'specialty', minWidth: 160 },
    actionsColumn<Expert>([
      { key: 'edit', label: CONTENT_TEXT.edit, allowed: mayEdit, onClick: (row) => setEditing(row) },
      {
        key: 'remove',
        label: CONTENT_TEXT.remove,
        allowed: mayEdit,
        danger: true,
        confirm: () => ({ title: CONTENT_TEXT.removeConfirm }),
        onClick: (row) => remove.mutateAsync(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{CONTENT_TEXT.expertTitle}</h2>
      <StudyPicker study={study} label={CONTENT_TEXT.study} placeholder={CONTENT_TEXT.studyPlaceholder} width={260} />
      <PickedStudyTable<Expert, Filters>
        studyId={studyId}
        name="expert-filter"
        rowKey="id"
        columns={columns}
        queryKey={(id) => queryKeys.expert.list(id)}
        fetchPage={(query) => expertApi.list(query).then((res) => res.data)}
        toolbar={
          <StudyAddButton
            label={CONTENT_TEXT.expertAdd}
            allowed={mayEdit}
            studyId={studyId}
            onClick={() => setEditing('new')}
          />
        }
      />
      {editing !== null && studyId !== null && (
        <ExpertDialog studyId={studyId} expert={editing === 'new' ? null : editing} onClose={closeEditing} />
      )}
    </div>
  );
}

function ExpertDialog(props: { studyId: number; expert: Expert | null; onClose: (saved: boolean) => void }) {
  const { studyId, expert } = props;
  const [form] = Form.useForm<ExpertForm>();
  const [photo, setPhoto] = useState<UploadedImage | null>(
    expert?.photoKey ? { key: expert.photoKey, url: expert.photoUrl! } : null,
  );
  const save = async () => {
    const values = await form.validateFields();
    const body = { ...values, studyId, photoKey: photo?.key ?? null };
    return expert ? expertApi.edit(expert.id, body) : expertApi.add(body);
  };
  return (
    <ContentSaveDialog
      width={640}
      title={expert ? CONTENT_TEXT.expertEdit : CONTENT_TEXT.expertAdd}
      save={save}
      onClose={props.onClose}
    >
      <Form<ExpertForm> form={form} layout="vertical" initialValues={expert ?? {}}>
        <Form.Item
          name="name"
          label={CONTENT_TEXT.name}
          rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.nameRequired }]}
        >
          <Input maxLength={30} />
        </Form.Item>
        <ContentImageField
          studyId={studyId}
          label={CONTENT_TEXT.photo}
          className="content-photo"
          image={photo}
          onChange={setPhoto}
        />
        <Space size={16} wrap>
          <Form.Item name="title" label={CONTENT_TEXT.jobTitle}>
            <Input maxLength={30} style={{ width: 170 }} />
          </Form.Item>
          <Form.Item name="hospital" label={CONTENT_TEXT.hospital}>
            <Input maxLength={60} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="department" label={CONTENT_TEXT.department}>
            <Input maxLength={60} style={{ width: 170 }} />
          </Form.Item>
        </Space>
        <Form.Item name="specialty" label={CONTENT_TEXT.specialty}>
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item name="introduction" label={CONTENT_TEXT.introduction}>
          <Input.TextArea rows={4} maxLength={5000} />
        </Form.Item>
      </Form>
    </ContentSaveDialog>
  );
}
