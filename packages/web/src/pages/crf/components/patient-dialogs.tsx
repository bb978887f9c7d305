import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { Descriptions, Modal, Spin } from 'antd';
import { crfRecordApi, type CrfPatient } from '../../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate, DATE_FORMAT } from '../../../utils/format-date';
import { QrImage } from './qr-image';

const t = CRF_PAGE_TEXT;

/** CRF-04: the patient's details, read-only, as the server holds them now. */
export function PatientInfoDialog({
  subjectRecordId,
  open,
  onClose,
}: {
  subjectRecordId: number;
  open: boolean;
  onClose: () => void;
}) {
  const query = useQuery({
    queryKey: queryKeys.crfRecord.patient(subjectRecordId),
    queryFn: () => crfRecordApi.patientInfo(subjectRecordId).then((res) => res.data),
    enabled: open,
  });
  const p = query.data;
  return (
    <Modal open={open} title={t.patientInfo} onCancel={onClose} footer={null} width={560} destroyOnHidden>
      {!p ? (
        <Spin />
      ) : (
        <Descriptions column={2} bordered size="small">
          <Descriptions.Item label={t.patientCode}>{p.identificationCode}</Descriptions.Item>
          <Descriptions.Item label={t.patientName}>{p.subjectName}</Descriptions.Item>
          <Descriptions.Item label={t.gender}>{t.genders[p.gender] ?? ''}</Descriptions.Item>
          {/* A masked birth date (1960-**-**) is not a date: shown as the server sent it. */}
          <Descriptions.Item label={t.birth}>
            {p.birth?.includes('*') ? p.birth : formatDate(p.birth, DATE_FORMAT)}
          </Descriptions.Item>
          <Descriptions.Item label={t.age}>{p.age ?? ''}</Descriptions.Item>
          <Descriptions.Item label={t.mobile}>{p.mobile ?? ''}</Descriptions.Item>
          {p.idNumber ? <Descriptions.Item label={t.idNumber}>{p.idNumber}</Descriptions.Item> : null}
          <Descriptions.Item label={t.disease}>{p.diseaseCode}</Descriptions.Item>
          <Descriptions.Item label={t.dept}>{p.deptName ?? ''}</Descriptions.Item>
          <Descriptions.Item label={t.subjectState}>{t.subjectStates[p.state] ?? ''}</Descriptions.Item>
          <Descriptions.Item label={t.creater}>{p.creater ?? ''}</Descriptions.Item>
          <Descriptions.Item label={t.createTime} span={2}>
            {formatDate(p.createTime)}
          </Descriptions.Item>
        </Descriptions>
      )}
    </Modal>
  );
}

/** CRF-06: 患者二维码 with the patient's qrCode, the CRF name and the recorder. */
export function PatientQrDialog({
  patient,
  crfTitle,
  recorder,
  open,
  onClose,
}: {
  patient: CrfPatient;
  crfTitle: string;
  recorder: string;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Modal open={open} title={t.qrTitle} onCancel={onClose} footer={null} width={380} destroyOnHidden>
      <div className="crf-qr-dialog">
        {patient.qrCode ? (
          <QrImage text={patient.qrCode} size={180} margin={2} alt={t.qrTitle} />
        ) : (
          <div>{t.qrEmpty}</div>
        )}
        <div className="crf-qr-name">
          {patient.subjectName}（{patient.identificationCode}）
        </div>
        <Descriptions column={1} size="small">
          <Descriptions.Item label={t.qrCrf}>{crfTitle}</Descriptions.Item>
          <Descriptions.Item label={t.qrRecorder}>{recorder}</Descriptions.Item>
        </Descriptions>
        <div className="crf-qr-bound">{patient.openId ? t.qrBound : t.qrUnbound}</div>
      </div>
    </Modal>
  );
}
