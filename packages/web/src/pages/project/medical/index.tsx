import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Form, Input, Modal, Select, Space, Table, Tag, Upload, message } from 'antd';
import { LinkOutlined, UploadOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { crfRecordApi } from '../../../api/crf.api';
import { subjectRecordApi } from '../../../api/subject.api';
import { ContentToolbar, useContentList } from '../content-list';
import { medicalApi, type MedicalFile, type MedicalRecord } from '../knowledge/content.api';
import { CT } from '../knowledge/texts';
import { useContentStudy } from '../knowledge/use-content-study';
import '../knowledge/content.css';

const VIEW = 'project.medical.view';
const EDIT = 'project.medical.edit';

interface MedicalForm {
  subjectId: number;
  title: string;
  category: string;
  visitDate?: Dayjs | null;
  hospital?: string;
  note?: string;
  reason?: string;
}

/**
 * 病历管理 (/project/medical): documents and notes of a patient's hospital stay, linked to a CRF record as its
 * source document (PUT /api/v1/medical/crf). Reading needs 查看病历资料, changes 编辑病历资料; an edit or a
 * deletion asks for its reason (audit trail).
 */
export default function MedicalPage() {
  const study = useContentStudy();
  const { studyId, can } = study;
  const [editing, setEditing] = useState<MedicalRecord | 'new' | null>(null);
  const [linking, setLinking] = useState<MedicalRecord | null>(null);
  const [removing, setRemoving] = useState<MedicalRecord | null>(null);
  const mayView = can(VIEW);
  const mayEdit = can(EDIT);
  const content = useContentList<MedicalRecord>({ study, key: 'medical', enabled: mayView, fetch: medicalApi.list });
  const { refresh } = content;
  const openFile = async (row: MedicalRecord, file: MedicalFile) => {
    const res = await medicalApi.file(studyId!, row.id, file.fileKey);
    const url = URL.createObjectURL(res.data);
    const a = document.createElement('a');
    a.href = url;
    a.download = file.fileName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <div className="page-card">
      <h2 className="page-title">{CT.medicalTitle}</h2>
      <ContentToolbar
        study={study}
        list={content}
        addText={CT.medicalAdd}
        mayAdd={mayEdit}
        onAdd={() => setEditing('new')}
      />
      <Table<MedicalRecord>
        {...content.table}
        scroll={{ x: 1000 }}
        columns={[
          { title: CT.code, dataIndex: 'identificationCode', width: 100 },
          { title: CT.patientName, dataIndex: 'subjectName', width: 90 },
          { title: CT.medicalName, dataIndex: 'title', ellipsis: true },
          { title: CT.category, dataIndex: 'category', width: 90 },
          { title: CT.visitDate, dataIndex: 'visitDate', width: 110 },
          {
            title: CT.files,
            dataIndex: 'files',
            width: 160,
            render: (files: MedicalFile[], row) => (
              <Space direction="vertical" size={0}>
                {files.map((f) => (
                  <Button key={f.fileKey} type="link" size="small" onClick={() => void openFile(row, f)}>
                    {f.fileName}
                  </Button>
                ))}
              </Space>
            ),
          },
          {
            title: CT.sourceOf,
            dataIndex: 'crfDataRecordId',
            width: 120,
            render: (id: number | null, row) =>
              id === null ? <Tag>{CT.unlinked}</Tag> : <Tag color="blue">{row.crfTitle ?? `#${id}`}</Tag>,
          },
          {
            title: CT.actions,
            key: 'actions',
            width: 220,
            fixed: 'right',
            render: (_: unknown, row) => (
              <Space size={0}>
                <Button type="link" disabled={!mayEdit} onClick={() => setEditing(row)}>
                  {CT.edit}
                </Button>
                <Button type="link" icon={<LinkOutlined />} disabled={!mayEdit} onClick={() => setLinking(row)}>
                  {CT.linkCrf}
                </Button>
                <Button type="link" danger disabled={!mayEdit} onClick={() => setRemoving(row)}>
                  {CT.remove}
                </Button>
              </Space>
            ),
          },
        ]}
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
          title={`${CT.remove}：${removing.title}`}
          onCancel={() => setRemoving(null)}
          onConfirm={async (reason) => {
            await medicalApi.remove(studyId, removing.id, reason);
            void message.success(CT.removed);
            setRemoving(null);
            void refresh();
          }}
        />
      )}
    </div>
  );
}

function ReasonDialog(props: { title: string; onCancel: () => void; onConfirm: (reason: string) => Promise<void> }) {
  const [form] = Form.useForm<{ reason: string }>();
  const [busy, setBusy] = useState(false);
  return (
    <Modal
      open
      title={props.title}
      okText={CT.confirm}
      cancelText={CT.cancel}
      confirmLoading={busy}
      onCancel={props.onCancel}
      onOk={async () => {
        const { reason } = await form.validateFields();
        setBusy(true);
        try {
          await props.onConfirm(reason.trim());
        } finally {
          setBusy(false);
        }
      }}
    >
      <Form form={form} layout="vertical">
        <Form.Item
          name="reason"
          label={CT.reason}
          rules={[{ required: true, whitespace: true, message: CT.reasonRequired }]}
        >
          <Input.TextArea rows={3} maxLength={200} placeholder={CT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function MedicalDialog(props: { studyId: number; record: MedicalRecord | null; onClose: (saved: boolean) => void }) {
  const { studyId, record } = props;
  const [form] = Form.useForm<MedicalForm>();
  const [files, setFiles] = useState<MedicalFile[]>(record?.files ?? []);
  const [patientSearch, setPatientSearch] = useState('');
  const patients = useQuery({
    queryKey: ['medical', 'patients', studyId, patientSearch],
    enabled: record === null,
    queryFn: () =>
      subjectRecordApi
        .list({ studyId, pageNum: 1, pageSize: 20, ...(patientSearch && { identificationCode: patientSearch }) })
        .then((r) => r.data.list),
  });
  const save = useMutation({
    mutationFn: async () => {
      const v = await form.validateFields();
      const body = {
        studyId,
        subjectId: record?.subjectId ?? v.subjectId,
        title: v.title,
        category: v.category,
        visitDate: v.visitDate ? v.visitDate.format('YYYY-MM-DD') : null,
        hospital: v.hospital ?? null,
        note: v.note ?? null,
        files,
      };
      return record ? medicalApi.edit(record.id, { ...body, reason: v.reason!.trim() }) : medicalApi.add(body);
    },
    onSuccess: () => {
      void message.success(CT.saved);
      props.onClose(true);
    },
  });
  return (
    <Modal
      open
      width={680}
      title={record ? CT.medicalEdit : CT.medicalAdd}
      okText={CT.confirm}
      cancelText={CT.cancel}
      confirmLoading={save.isPending}
      onOk={() => save.mutate()}
      onCancel={() => props.onClose(false)}
    >
      <Form<MedicalForm>
        form={form}
        layout="vertical"
        initialValues={
          record
            ? {
                ...record,
                visitDate: record.visitDate ? dayjs(record.visitDate) : null,
                hospital: record.hospital ?? undefined,
                note: record.note ?? undefined,
              }
            : {}
        }
      >
        {record ? (
          <Form.Item label={CT.patient}>
            {record.identificationCode} {record.subjectName}
          </Form.Item>
        ) : (
          <Form.Item name="subjectId" label={CT.patient} rules={[{ required: true, message: CT.patientRequired }]}>
            <Select
              showSearch
              filterOption={false}
              placeholder={CT.patientSearch}
              onSearch={(v) => setPatientSearch(v.trim())}
              loading={patients.isFetching}
              options={(patients.data ?? []).map((p) => ({
                value: p.id,
                label: `${p.identificationCode} ${p.subjectName}`,
              }))}
            />
          </Form.Item>
        )}
        <Space size={16} wrap>
          <Form.Item
            name="title"
            label={CT.medicalName}
            rules={[{ required: true, whitespace: true, message: CT.titleRequired }]}
          >
            <Input maxLength={60} style={{ width: 300 }} />
          </Form.Item>
          <Form.Item name="category" label={CT.category} rules={[{ required: true, message: CT.categoryRequired }]}>
            <Select style={{ width: 140 }} options={CT.categories.map((c) => ({ value: c, label: c }))} />
          </Form.Item>
        </Space>
        <Space size={16} wrap>
          <Form.Item name="visitDate" label={CT.visitDate}>
            <DatePicker />
          </Form.Item>
          <Form.Item name="hospital" label={CT.hospital}>
            <Input maxLength={60} style={{ width: 300 }} />
          </Form.Item>
        </Space>
        <Form.Item name="note" label={CT.note}>
          <Input.TextArea rows={4} maxLength={20000} />
        </Form.Item>
        <Form.Item label={CT.files}>
          <Upload
            fileList={files.map((f) => ({ uid: f.fileKey, name: f.fileName, status: 'done' as const }))}
            onRemove={(f) => setFiles((all) => all.filter((x) => x.fileKey !== f.uid))}
            beforeUpload={(file) => {
              void crfRecordApi
                .upload(studyId, file)
                .then((r) => setFiles((all) => [...all, { fileKey: r.data.fileKey, fileName: r.data.fileName }]));
              return false;
            }}
          >
            <Button icon={<UploadOutlined />}>{CT.upload}</Button>
          </Upload>
        </Form.Item>
        {record && (
          <Form.Item
            name="reason"
            label={CT.reason}
            rules={[{ required: true, whitespace: true, message: CT.reasonRequired }]}
          >
            <Input.TextArea rows={2} maxLength={200} placeholder={CT.reasonPlaceholder} />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}

function LinkDialog(props: { studyId: number; record: MedicalRecord; onClose: (saved: boolean) => void }) {
  const { studyId, record } = props;
  const [chosen, setChosen] = useState<number | null>(record.crfDataRecordId);
  const records = useQuery({
    queryKey: ['medical', 'linkable', studyId, record.subjectId],
    queryFn: () => medicalApi.linkable(studyId, record.subjectId).then((r) => r.data),
  });
  const save = useMutation({
    mutationFn: () => medicalApi.linkCrf({ studyId, id: record.id, crfDataRecordId: chosen }),
    onSuccess: () => {
      void message.success(CT.linkedOk);
      props.onClose(true);
    },
  });
  return (
    <Modal
      open
      title={`${CT.linkTitle}：${record.title}`}
      okText={CT.confirm}
      cancelText={CT.cancel}
      confirmLoading={save.isPending}
      onOk={() => save.mutate()}
      onCancel={() => props.onClose(false)}
    >
      <Form layout="vertical">
        <Form.Item label={CT.crfRecord}>
          <Select
            aria-label={CT.crfRecord}
            allowClear
            placeholder={CT.crfRecordPlaceholder}
            loading={records.isLoading}
            value={chosen ?? undefined}
            onChange={(v: number | undefined) => setChosen(v ?? null)}
            options={(records.data ?? []).map((r) => ({
              value: r.crfDataRecordId,
              label: `${r.crfTitle}（${dayjs(r.createTime).format('YYYY-MM-DD HH:mm')}）`,
            }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
