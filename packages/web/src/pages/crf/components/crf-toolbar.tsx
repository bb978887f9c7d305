import type { ReactNode } from 'react';
import {
  AuditOutlined,
  CameraOutlined,
  EditOutlined,
  FileSearchOutlined,
  PictureOutlined,
  PrinterOutlined,
  QuestionCircleOutlined,
  SafetyCertificateOutlined,
} from '@ant-design/icons';
import { Badge, Button, Tooltip } from 'antd';
import { CrfTopBarActions } from '../../../layouts/crf-layout';
import { T } from '../../../locales/zh-CN';

const t = T.crfPage;

/** The study buttons the CRF page's bar is guarded by (forms §6). */
export const CRF_BUTTONS = {
  dicom: 'project.subject.dicom',
  doubt: 'study.iconBtn.doubt',
  save: 'business.crf.save',
  submit: 'business.crf.submit',
  sdv: 'business.crf.sdv',
} as const;

export interface CrfToolbarProps {
  /** Print, recognition and the query picker need an open form. */
  formOpen: boolean;
  showIdentify: boolean;
  /** QRY-06: study doubt flag "1" and study.iconBtn.doubt. */
  showDoubt: boolean;
  showDicom: boolean;
  showSdv: boolean;
  sdvMode: boolean;
  signatureInvalid: boolean;
  printing: boolean;
  onPrint: () => void;
  onDicom: () => void;
  onIdentify: () => void;
  onDoubt: () => void;
  onOverview: () => void;
  onSign: () => void;
  onSdv: () => void;
}

function BarButton({
  label,
  icon,
  onClick,
  disabled,
  loading,
  active,
  tip,
}: {
  label: string;
  icon: ReactNode;
  onClick: () => void;
  disabled?: boolean;
  loading?: boolean;
  active?: boolean;
  tip?: string;
}) {
  const button = (
    <Button
      type={active ? 'primary' : 'text'}
      icon={icon}
      onClick={onClick}
      disabled={disabled}
      loading={loading}
      className="crf-bar-button"
    >
      {label}
    </Button>
  );
  return tip ? (
    <Tooltip title={tip}>
      <span style={disabled ? { cursor: 'not-allowed' } : undefined}>{button}</span>
    </Tooltip>
  ) : (
    button
  );
}

/**
 * The form page's buttons in the top bar (CRF-15): 打印, 影像 (DICOM), 识别 (only with an identify
 * type), 质疑 (only with queries on), CRF概览, 签名 and the SDV toggle.
 */
export function CrfToolbar(props: CrfToolbarProps) {
  return (
    <CrfTopBarActions>
      <BarButton
        label={t.print}
        icon={<PrinterOutlined />}
        onClick={props.onPrint}
        disabled={!props.formOpen}
        loading={props.printing}
      />
      {props.showDicom && <BarButton label={t.dicom} icon={<PictureOutlined />} onClick={props.onDicom} />}
      {props.showIdentify && (
        <BarButton label={t.identify} icon={<CameraOutlined />} onClick={props.onIdentify} disabled={!props.formOpen} />
      )}
      {props.showDoubt && (
        <BarButton
          label={t.doubt}
          icon={<QuestionCircleOutlined />}
          onClick={props.onDoubt}
          disabled={!props.formOpen}
        />
      )}
      <BarButton label={t.overview} icon={<FileSearchOutlined />} onClick={props.onOverview} />
      {/* Everyone may see the signature state; only holders of the sign button may sign. */}
      <Badge dot={props.signatureInvalid} offset={[-8, 6]}>
        <BarButton label={t.sign} icon={<EditOutlined />} onClick={props.onSign} />
      </Badge>
      {props.showSdv && (
        <BarButton
          label={t.sdv}
          icon={props.sdvMode ? <SafetyCertificateOutlined /> : <AuditOutlined />}
          onClick={props.onSdv}
          active={props.sdvMode}
          tip={props.sdvMode ? t.sdvOn : t.sdvOff}
        />
      )}
    </CrfTopBarActions>
  );
}
