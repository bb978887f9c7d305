import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Space, Tag } from 'antd';
import { LinkOutlined, PlusOutlined } from '@ant-design/icons';
import { medicalApi, type MedicalFile, type MedicalRecord } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import type { Paging } from '../../../components/paged-table';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
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
  const [editing, setEditing] = useState<MedicalRecord | 'new' | null>(null);
  const [linking, setLinking] = useState<MedicalRecord | null>(null);
  const [removing, setRemoving] = useState<MedicalRecord | null>(null);
  const { message } = App.useApp();
  const client = useQueryClient();
  const mayView = can(VIEW);
  const mayEdit = can(EDIT);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.medical.lists() });
  const openFile = async (row: MedicalRecord, file: MedicalFile) => {
    const res = await medicalApi.file(studyId!, row.id, file.fileKey);
    const url = URL.createObjectURL(res.data);
    const a = document.createElement('a');
    a.href = url;
    a.download = file.fileName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
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
      <TablePage<MedicalRecord, Filters>
        // Another study starts from its first page, unfiltered.
        key={studyId}
        name="medical-filter"
        rowKey="id"
        columns={columns}
        // Without 查看病历资料 the list is not asked for.
        {...(studyId === null || !mayView
          ? { rows: [] }
          : {
              queryKey: queryKeys.medical.list(studyId),
              fetchPage: (query: Paging & Filters) => medicalApi.list({ ...query, studyId }).then((res) => res.data),
            })}
        toolbar={
          <Button
            type="primary"
            icon={<PlusOutlined />}
            disabled={!mayEdit || studyId === null}
            onClick={() => setEditing('new')}
          >
            {CONTENT_TEXT.medicalAdd}
          </Button>
        }
      />
      {editing !== null && studyId !== null && (
        <MedicalDialog
          studyId={studyId}
          record={editing === 'new' ? null : editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void refresh();
          }}
        />
      )}
      {linking !== null && studyId !== null && (
        <LinkDialog
          studyId={studyId}
          record={linking}
          onClose={(saved) => {
            setLinking(null);
            if (saved) void refresh();
          }}
        />
      )}
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
