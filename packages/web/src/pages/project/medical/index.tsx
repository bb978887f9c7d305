import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Space, Tag } from 'antd';
import { LinkOutlined } from '@ant-design/icons';
import { medicalApi, type MedicalFile, type MedicalRecord } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, type PageColumn } from '../../../components/table-page';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { saveBlob } from '../../../utils/download';
import { PickedStudyTable, StudyAddButton } from '../components/picked-study-table';
import { useDialogRow } from '../components/use-dialog-row';
import { StudyPicker, usePickedStudy } from '../picked-study';
import { LinkDialog, MedicalDialog, ReasonDialog } from './medical-dialogs';
import '../knowledge/content.css';

const VIEW = 'project.medical.view';
const EDIT = 'project.medical.edit';

interface Filters {
  keyword?: string;
}

/**
 * 病历管理 (/project/medical): documents and notes of a patient's hospital stay, linked to a CRF record as its
 * source document (PUT /api/v1/medical/crf). Reading needs 查看病历资料, changes 编辑病历资料; an edit or a
 * deletion asks for its reason (audit trail).
 */
export default function MedicalPage() {
  const study = usePickedStudy();
  const { studyId, can } = study;
  const [removing, setRemoving] = useState<MedicalRecord | null>(null);
  const { message } = App.useApp();
  const client = useQueryClient();
  const mayView = can(VIEW);
  const mayEdit = can(EDIT);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.medical.lists() });
  const [editing, setEditing, closeEditing] = useDialogRow<MedicalRecord | 'new'>(refresh);
  const [linking, setLinking, closeLinking] = useDialogRow<MedicalRecord>(refresh);
  const openFile = async (row: MedicalRecord, file: MedicalFile) => {
    const res = await medicalApi.file(studyId!, row.id, file.fileKey);
    saveBlob(res.data, file.fileName);
  };

  const columns: PageColumn<MedicalRecord>[] = [
    {
      title: CONTENT_TEXT.code,
      dataIndex: 'identificationCode',
      width: 100,
      search: { name: 'keyword', label: CONTENT_TEXT.keyword, width: 200 },
    },
    { title: CONTENT_TEXT.patientName, dataIndex: 'subjectName', width: 90 },
    { title: CONTENT_TEXT.medicalName, dataIndex: 'title', minWidth: 160 },
    { title: CONTENT_TEXT.category, dataIndex: 'category', width: 90 },
    { title: CONTENT_TEXT.visitDate, dataIndex: 'visitDate', width: 110 },
    {
      title: CONTENT_TEXT.files,
      dataIndex: 'files',
      width: 160,
      ellipsis: false,
      render: (files: MedicalFile[], row) => (
        <Space orientation="vertical" size={0}>
          {files.map((f) => (
            <Button key={f.fileKey} type="link" size="small" onClick={() => void openFile(row, f)}>
              {f.fileName}
            </Button>
          ))}
        </Space>
      ),
    },
    {
      title: CONTENT_TEXT.sourceOf,
      dataIndex: 'crfDataRecordId',
      kind: 'status',
      width: 120,
      render: (id: number | null, row) =>
        id === null ? <Tag>{CONTENT_TEXT.unlinked}</Tag> : <Tag color="blue">{row.crfTitle ?? `#${id}`}</Tag>,
    },
    actionsColumn<MedicalRecord>([
      { key: 'edit', label: CONTENT_TEXT.edit, allowed: mayEdit, onClick: (row) => setEditing(row) },
      {
        key: 'link',
        label: CONTENT_TEXT.linkCrf,
        icon: <LinkOutlined />,
        allowed: mayEdit,
        onClick: (row) => setLinking(row),
      },
      { key: 'remove', label: CONTENT_TEXT.remove, allowed: mayEdit, danger: true, onClick: (row) => setRemoving(row) },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{CONTENT_TEXT.medicalTitle}</h2>
      <StudyPicker study={study} label={CONTENT_TEXT.study} placeholder={CONTENT_TEXT.studyPlaceholder} width={260} />
      <PickedStudyTable<MedicalRecord, Filters>
        studyId={studyId}
        // Without 查看病历资料 the list is not asked for.
        readable={mayView}
        name="medical-filter"
        rowKey="id"
        columns={columns}
        queryKey={(id) => queryKeys.medical.list(id)}
        fetchPage={(query) => medicalApi.list(query).then((res) => res.data)}
        toolbar={
          <StudyAddButton
            label={CONTENT_TEXT.medicalAdd}
            allowed={mayEdit}
            studyId={studyId}
            onClick={() => setEditing('new')}
          />
        }
      />
      {editing !== null && studyId !== null && (
        <MedicalDialog studyId={studyId} record={editing === 'new' ? null : editing} onClose={closeEditing} />
      )}
      {linking !== null && studyId !== null && <LinkDialog studyId={studyId} record={linking} onClose={closeLinking} />}
      {removing !== null && studyId !== null && (
        <ReasonDialog
          title={`${CONTENT_TEXT.remove}：${removing.title}`}
          onCancel={() => setRemoving(null)}
          onConfirm={async (reason) => {
            await medicalApi.remove(studyId, removing.id, reason);
            void message.success(CONTENT_TEXT.removed);
            setRemoving(null);
            void refresh();
          }}
        />
      )}
    </div>
  );
}
