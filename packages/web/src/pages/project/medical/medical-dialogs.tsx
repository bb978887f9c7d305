import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, DatePicker, Form, Input, Modal, Select, Space, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { medicalApi, type MedicalCategory, type MedicalFile, type MedicalRecord } from '../../../api/content.api';
import { crfRecordApi } from '../../../api/crf.api';
import { queryKeys } from '../../../api/query-keys';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { ContentSaveDialog } from '../components/content-dialogs';
import { PatientSearchSelect } from '../components/patient-search-select';

interface MedicalForm {
  subjectId: number;
  title: string;
  category: MedicalCategory;
  visitDate?: Dayjs | null;
  hospital?: string;
  note?: string;
  reason?: string;
}

/** Asks why a medical record is deleted (the audit trail keeps the reason). */
export function ReasonDialog(props: {
  title: string;
  onCancel: () => void;
  onConfirm: (reason: string) => Promise<void>;
}) {
  const [form] = Form.useForm<{ reason: string }>();
  const [busy, setBusy] = useState(false);
  return (
    <Modal
      open
      title={props.title}
      okText={CONTENT_TEXT.confirm}
      cancelText={CONTENT_TEXT.cancel}
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
          label={CONTENT_TEXT.reason}
          rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.reasonRequired }]}
        >
          <Input.TextArea rows={3} maxLength={200} placeholder={CONTENT_TEXT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** 新增病历资料 / 编辑病历资料; an edit asks for its reason. */
export function MedicalDialog(props: {
  studyId: number;
  record: MedicalRecord | null;
  onClose: (saved: boolean) => void;
}) {
  const { studyId, record } = props;
  const [form] = Form.useForm<MedicalForm>();
  const [files, setFiles] = useState<MedicalFile[]>(record?.files ?? []);
  const save = async () => {
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
  };
  return (
    <ContentSaveDialog
      width={680}
      title={record ? CONTENT_TEXT.medicalEdit : CONTENT_TEXT.medicalAdd}
      save={save}
      onClose={props.onClose}
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
          <Form.Item label={CONTENT_TEXT.patient}>
            {record.identificationCode} {record.subjectName}
          </Form.Item>
        ) : (
          <Form.Item
            name="subjectId"
            label={CONTENT_TEXT.patient}
            rules={[{ required: true, message: CONTENT_TEXT.patientRequired }]}
          >
            <PatientSearchSelect
              studyId={studyId}
              queryKey={(code) => queryKeys.medical.patients(studyId, code)}
              placeholder={CONTENT_TEXT.patientSearch}
            />
          </Form.Item>
        )}
        <Space size={16} wrap>
          <Form.Item
            name="title"
            label={CONTENT_TEXT.medicalName}
            rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.titleRequired }]}
          >
            <Input maxLength={60} style={{ width: 300 }} />
          </Form.Item>
          <Form.Item
            name="category"
            label={CONTENT_TEXT.category}
            rules={[{ required: true, message: CONTENT_TEXT.categoryRequired }]}
          >
            <Select style={{ width: 140 }} options={CONTENT_TEXT.categories.map((c) => ({ value: c, label: c }))} />
          </Form.Item>
        </Space>
        <Space size={16} wrap>
          <Form.Item name="visitDate" label={CONTENT_TEXT.visitDate}>
            <DatePicker />
          </Form.Item>
          <Form.Item name="hospital" label={CONTENT_TEXT.hospital}>
            <Input maxLength={60} style={{ width: 300 }} />
          </Form.Item>
        </Space>
        <Form.Item name="note" label={CONTENT_TEXT.note}>
          <Input.TextArea rows={4} maxLength={20000} />
        </Form.Item>
        <Form.Item label={CONTENT_TEXT.files}>
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
            <Button icon={<UploadOutlined />}>{CONTENT_TEXT.upload}</Button>
          </Upload>
        </Form.Item>
        {record && (
          <Form.Item
            name="reason"
            label={CONTENT_TEXT.reason}
            rules={[{ required: true, whitespace: true, message: CONTENT_TEXT.reasonRequired }]}
          >
            <Input.TextArea rows={2} maxLength={200} placeholder={CONTENT_TEXT.reasonPlaceholder} />
          </Form.Item>
        )}
      </Form>
    </ContentSaveDialog>
  );
}

/** 关联表单记录: the patient's CRF record the medical record is the source document of (none unlinks). */
export function LinkDialog(props: { studyId: number; record: MedicalRecord; onClose: (saved: boolean) => void }) {
  const { studyId, record } = props;
  const [chosen, setChosen] = useState<number | null>(record.crfDataRecordId);
  const records = useQuery({
    queryKey: queryKeys.medical.linkable(studyId, record.subjectId),
    queryFn: () => medicalApi.linkable(studyId, record.subjectId).then((r) => r.data),
  });
  return (
    <ContentSaveDialog
      title={`${CONTENT_TEXT.linkTitle}：${record.title}`}
      save={() => medicalApi.linkCrf({ studyId, id: record.id, crfDataRecordId: chosen })}
      savedText={CONTENT_TEXT.linkedOk}
      onClose={props.onClose}
    >
      <Form layout="vertical">
        <Form.Item label={CONTENT_TEXT.crfRecord}>
          <Select
            aria-label={CONTENT_TEXT.crfRecord}
            allowClear
            placeholder={CONTENT_TEXT.crfRecordPlaceholder}
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
    </ContentSaveDialog>
  );
}
