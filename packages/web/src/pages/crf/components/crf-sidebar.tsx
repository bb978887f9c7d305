import { useMemo, useState, type Key } from 'react';
import {
  ArrowLeftOutlined,
  CheckCircleFilled,
  ClockCircleFilled,
  CopyOutlined,
  ExclamationCircleFilled,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  MinusCircleOutlined,
  UserOutlined,
  WechatOutlined,
} from '@ant-design/icons';
import { Button, Spin, Tooltip, Tree, type TreeDataNode } from 'antd';
import { FORM_STATE, type CrfMenuNode, type CrfPatient } from '../../../api/crf.api';
import { useCrfLayout, useSiderPlacement } from '../../../layouts/crf-layout';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formStateMeta, isRepeatable, menuForms, stageKeys } from '../crf-menu';
import { CrfFollowVisits } from './crf-follow-visits';
import { PatientRandomization } from '../../project/randomization/components/patient-randomization';
import { PatientInfoDialog, PatientQrDialog } from './patient-dialogs';
import { TestPatientTag } from '../../../components/test-data-tag';
import { QrImage } from './qr-image';

const t = CRF_PAGE_TEXT;

/** CRF-07/CRF-08: one icon per state, its meaning in the tooltip. */
export function FormStateIcon({ state }: { state: number | undefined }) {
  const meta = formStateMeta(state);
  const style = { color: meta.color };
  const icon =
    meta.code === FORM_STATE.submitted ? (
      <CheckCircleFilled style={style} />
    ) : meta.code === FORM_STATE.incomplete ? (
      <ClockCircleFilled style={style} />
    ) : meta.code === FORM_STATE.doubt ? (
      <ExclamationCircleFilled style={style} />
    ) : (
      <MinusCircleOutlined style={style} />
    );
  return (
    <Tooltip title={meta.tip}>
      <span className="crf-state-icon" role="img" aria-label={meta.label} data-state={meta.code}>
        {icon}
      </span>
    </Tooltip>
  );
}

function FormTitle({ form }: { form: CrfMenuNode }) {
  const repeatable = isRepeatable(form);
  return (
    <span className="crf-menu-form" data-crf-id={form.crfId}>
      <FormStateIcon state={form.state} />
      <span className="crf-menu-form-title">{form.title}</span>
      {repeatable && (
        <Tooltip title={t.repeatable}>
          <span className="crf-menu-repeat" role="img" aria-label={t.repeatable}>
            <CopyOutlined />
            {form.count ? <span className="crf-menu-count">{form.count}</span> : null}
          </span>
        </Tooltip>
      )}
    </span>
  );
}

function toTree(nodes: readonly CrfMenuNode[]): TreeDataNode[] {
  return nodes.map((node) =>
    node.type === 1
      ? { key: `crf:${node.crfId}`, title: <FormTitle form={node} />, isLeaf: true }
      : {
          key: node.id,
          title: <span className="crf-menu-stage">{node.title}</span>,
          selectable: false,
          children: toTree(node.childrens ?? []),
        },
  );
}

export interface CrfSidebarProps {
  subjectRecordId: number;
  patient: CrfPatient | undefined;
  menu: CrfMenuNode[] | undefined;
  menuLoading: boolean;
  selectedCrfId: number | null;
  /** The open form's title and recorder, for the QR dialog. */
  crfTitle: string;
  recorder: string;
  onSelect: (crfId: number) => void;
  onBack: () => void;
}

/**
 * The CRF sidebar (forms §2): patient name and code (the patient dialog), the QR thumbnail
 * (患者二维码), the tree of stages and forms with their states, a return button and the fold
 * toggle (282 / 50).
 */
export function CrfSidebar({
  subjectRecordId,
  patient,
  menu,
  menuLoading,
  selectedCrfId,
  crfTitle,
  recorder,
  onSelect,
  onBack,
}: CrfSidebarProps) {
  // In the drawer of a narrow screen the sidebar is never folded, and picking a form closes the drawer.
  const inDrawer = useSiderPlacement() === 'drawer';
  const folded = useCrfLayout((s) => s.folded) && !inDrawer;
  const setFolded = useCrfLayout((s) => s.setFolded);
  const setDrawerOpen = useCrfLayout((s) => s.setDrawerOpen);
  const select = (crfId: number) => {
    onSelect(crfId);
    if (inDrawer) setDrawerOpen(false);
  };
  const [dialog, setDialog] = useState<'patient' | 'qr' | null>(null);
  const [expanded, setExpanded] = useState<Key[] | null>(null);
  const tree = useMemo(() => toTree(menu ?? []), [menu]);
  const forms = useMemo(() => menuForms(menu ?? []), [menu]);
  const allStages = useMemo(() => stageKeys(menu ?? []), [menu]);

  const foldButton = (
    <Tooltip title={folded ? t.unfold : t.fold} placement="right">
      <Button
        type="text"
        size="small"
        aria-label={folded ? t.unfold : t.fold}
        icon={folded ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
        onClick={() => setFolded(!folded)}
      />
    </Tooltip>
  );
  const backButton = (
    <Tooltip title={t.back} placement="right">
      <Button type="text" size="small" aria-label={t.back} icon={<ArrowLeftOutlined />} onClick={onBack}>
        {folded ? null : t.back}
      </Button>
    </Tooltip>
  );

  const qrThumb = patient?.qrCode ? (
    <button
      type="button"
      className={`crf-qr-thumb${patient.openId ? ' crf-qr-thumb-bound' : ''}`}
      aria-label={t.qrOpen}
      onClick={() => setDialog('qr')}
    >
      {/* CRF-05: a patient bound to the messaging app shows a different picture. */}
      {patient.openId ? (
        <WechatOutlined className="crf-qr-thumb-icon" />
      ) : (
        <QrImage text={patient.qrCode} size={30} alt={t.qrTitle} />
      )}
    </button>
  ) : null;

  return (
    <div className="crf-sidebar">
      <div className="crf-sidebar-head">
        {folded ? (
          <>
            {foldButton}
            {backButton}
          </>
        ) : (
          <>
            {backButton}
            {!inDrawer && foldButton}
          </>
        )}
      </div>
      {folded ? (
        <div className="crf-sidebar-folded">
          <Tooltip title={patient ? `${patient.subjectName}（${patient.identificationCode}）` : ''} placement="right">
            <Button
              type="text"
              aria-label={t.patientInfo}
              icon={<UserOutlined />}
              onClick={() => setDialog('patient')}
            />
          </Tooltip>
          {qrThumb}
          <nav className="crf-sidebar-folded-forms">
            {forms.map((form) => (
              <Tooltip key={form.crfId} title={form.title} placement="right">
                <button
                  type="button"
                  className={`crf-folded-form${form.crfId === selectedCrfId ? ' crf-folded-form-active' : ''}`}
                  aria-label={form.title}
                  onClick={() => select(form.crfId!)}
                >
                  <FormStateIcon state={form.state} />
                </button>
              </Tooltip>
            ))}
          </nav>
        </div>
      ) : (
        <>
          <div className="crf-patient">
            <button type="button" className="crf-patient-name" onClick={() => setDialog('patient')}>
              {/* Named by what it shows (name and code), then what it opens. */}
              <span className="crf-patient-name-text">{patient?.subjectName ?? '…'}</span>
              <span className="crf-patient-code">{patient?.identificationCode ?? ''}</span>
              <span className="sr-only"> {t.patientInfo}</span>
            </button>
            <TestPatientTag test={patient?.test} />
            {qrThumb}
          </div>
          {patient && (
            <PatientRandomization
              studyId={patient.studyId}
              subjectId={patient.id}
              identificationCode={patient.identificationCode}
              subjectName={patient.subjectName}
            />
          )}
          <div className="crf-menu">
            {menuLoading && !menu ? (
              <Spin />
            ) : forms.length === 0 ? (
              <div className="crf-menu-empty">{t.noForms}</div>
            ) : (
              <Tree
                blockNode
                className="crf-menu-tree"
                treeData={tree}
                expandedKeys={expanded ?? allStages}
                onExpand={(keys) => setExpanded(keys)}
                selectedKeys={selectedCrfId !== null ? [`crf:${selectedCrfId}`] : []}
                onSelect={(_keys, info) => {
                  const key = String(info.node.key);
                  if (key.startsWith('crf:')) select(Number(key.slice(4)));
                }}
              />
            )}
          </div>
          <CrfFollowVisits subjectRecordId={subjectRecordId} menu={menu} />
        </>
      )}
      <PatientInfoDialog
        subjectRecordId={subjectRecordId}
        open={dialog === 'patient'}
        onClose={() => setDialog(null)}
      />
      {patient && (
        <PatientQrDialog
          patient={patient}
          crfTitle={crfTitle}
          recorder={recorder}
          open={dialog === 'qr'}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}
