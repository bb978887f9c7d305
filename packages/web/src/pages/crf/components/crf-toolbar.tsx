import type { ReactNode } from 'react';
import {
  AuditOutlined,
  CameraOutlined,
  EditOutlined,
  EllipsisOutlined,
  FileSearchOutlined,
  OrderedListOutlined,
  PictureOutlined,
  PrinterOutlined,
  QuestionCircleOutlined,
  SafetyCertificateOutlined,
} from '@ant-design/icons';
import { Badge, Button, Dropdown, Tooltip, type MenuProps } from 'antd';
import { CrfTopBarActions } from '../../../layouts/crf-layout';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';

const t = CRF_PAGE_TEXT;

/** The study buttons the CRF page's bar is guarded by (forms §6). */
export const CRF_BUTTONS = {
  dicom: 'project.subject.dicom',
  doubt: 'study.iconBtn.doubt',
  save: 'business.crf.save',
  submit: 'business.crf.submit',
  sdv: 'business.crf.sdv',
  lock: 'business.lock',
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
  /** Narrow screen: every button goes into one 更多 menu (保存 and 提交 stay in the form's own bar). */
  compact?: boolean;
  /** Given when the item panel is not beside the form: the bar offers 题目标记, which opens it. */
  onItems?: (() => void) | undefined;
  /**
   * A lock holds the casebook or form: its words; 签名, 识别, 质疑 and SDV are disabled with them
   * (docs/multi-centre.md).
   */
  lockedText?: string | undefined;
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
 * type), 质疑 (only with queries on), CRF概览, 签名 and the SDV toggle. On a narrow screen they fold
 * into one 更多 menu.
 */
export function CrfToolbar(props: CrfToolbarProps) {
  if (props.compact) return <CompactToolbar {...props} />;
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
        <BarButton
          label={t.identify}
          icon={<CameraOutlined />}
          onClick={props.onIdentify}
          disabled={!props.formOpen || Boolean(props.lockedText)}
          tip={props.lockedText}
        />
      )}
      {props.showDoubt && (
        <BarButton
          label={t.doubt}
          icon={<QuestionCircleOutlined />}
          onClick={props.onDoubt}
          disabled={!props.formOpen || Boolean(props.lockedText)}
          tip={props.lockedText}
        />
      )}
      <BarButton label={t.overview} icon={<FileSearchOutlined />} onClick={props.onOverview} />
      {/* Everyone may see the signature state; only holders of the sign button may sign. */}
      <Badge dot={props.signatureInvalid} offset={[-8, 6]}>
        <BarButton
          label={t.sign}
          icon={<EditOutlined />}
          onClick={props.onSign}
          disabled={Boolean(props.lockedText)}
          tip={props.lockedText}
        />
      </Badge>
      {props.showSdv && (
        <BarButton
          label={t.sdv}
          icon={props.sdvMode ? <SafetyCertificateOutlined /> : <AuditOutlined />}
          onClick={props.onSdv}
          active={props.sdvMode}
          disabled={Boolean(props.lockedText)}
          tip={props.lockedText ?? (props.sdvMode ? t.sdvOn : t.sdvOff)}
        />
      )}
      {props.onItems && <BarButton label={t.itemsToggle} icon={<OrderedListOutlined />} onClick={props.onItems} />}
    </CrfTopBarActions>
  );
}

type MenuItem = NonNullable<MenuProps['items']>[number];

/** The same entries as one menu, for a bar with room for a title and one button. */
function CompactToolbar(props: CrfToolbarProps) {
  const entries: Array<MenuItem & { run: () => void }> = [];
  const add = (key: string, label: ReactNode, icon: ReactNode, run: () => void, disabled = false) =>
    entries.push({ key, label, icon, disabled, run });
  if (props.onItems) add('items', t.itemsToggle, <OrderedListOutlined />, props.onItems);
  if (props.showSdv) {
    add(
      'sdv',
      props.sdvMode ? t.sdvOn : t.sdvOff,
      props.sdvMode ? <SafetyCertificateOutlined /> : <AuditOutlined />,
      props.onSdv,
      Boolean(props.lockedText),
    );
  }
  if (props.showDoubt) {
    add('doubt', t.doubt, <QuestionCircleOutlined />, props.onDoubt, !props.formOpen || Boolean(props.lockedText));
  }
  add('print', t.print, <PrinterOutlined />, props.onPrint, !props.formOpen || props.printing);
  add('overview', t.overview, <FileSearchOutlined />, props.onOverview);
  add(
    'sign',
    <Badge dot={props.signatureInvalid} offset={[6, 0]}>
      {t.sign}
    </Badge>,
    <EditOutlined />,
    props.onSign,
    Boolean(props.lockedText),
  );
  if (props.showDicom) add('dicom', t.dicom, <PictureOutlined />, props.onDicom);
  if (props.showIdentify) {
    add('identify', t.identify, <CameraOutlined />, props.onIdentify, !props.formOpen || Boolean(props.lockedText));
  }
  const items: MenuItem[] = entries.map(({ run: _run, ...item }) => item);
  return (
    <CrfTopBarActions>
      {props.sdvMode && <SafetyCertificateOutlined className="crf-bar-sdv-on" aria-label={t.sdvOn} role="img" />}
      <Dropdown
        trigger={['click']}
        placement="bottomRight"
        menu={{
          items,
          className: 'crf-bar-menu',
          onClick: ({ key }) => entries.find((entry) => entry.key === key)?.run(),
        }}
      >
        <Badge dot={props.signatureInvalid} offset={[-8, 6]}>
          <Button type="text" icon={<EllipsisOutlined />} loading={props.printing} className="crf-bar-button">
            {t.more}
          </Button>
        </Badge>
      </Dropdown>
    </CrfTopBarActions>
  );
}
