import { useState } from 'react';
import { Alert, Modal, Radio, Table, Tag, type TableColumnsType } from 'antd';
import type { CrfExistingChoice, CrfPlannedForm } from '../../../../api/study.api';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';
import { STUDY_CRF_TEXT } from '../../../../locales/study-crf.zh-CN';
import { allChosen, type PlannedFile } from '../upload-outcome';

interface Row extends CrfPlannedForm {
  key: string;
  fileName: string;
}

/**
 * Before an upload writes anything: which forms become new CRFs and which share a title with a CRF of the
 * study. For each of those the user picks a new version or a new CRF beside it; nothing is preselected, so a
 * form from another study's file cannot become a version of ours by a hurried click.
 */
export function CrfUploadPlanDialog({
  files,
  draft = false,
  onConfirm,
  onCancel,
}: {
  files: PlannedFile[] | null;
  /** A production study: a new version goes into the CRF's draft (issue 36), not live. */
  draft?: boolean;
  onConfirm: (choices: Record<string, CrfExistingChoice>) => void;
  onCancel: () => void;
}) {
  const [choices, setChoices] = useState<Record<string, CrfExistingChoice>>({});
  const rows: Row[] = (files ?? []).flatMap((f) =>
    f.plan.map((p, i) => ({ ...p, key: `${f.file.name}:${i}`, fileName: f.file.name })),
  );
  const columns: TableColumnsType<Row> = [
    { title: STUDY_CRF_TEXT.planFile, dataIndex: 'fileName', width: 180, ellipsis: true },
    { title: STUDY_CRF_TEXT.planForm, dataIndex: 'title', width: 200 },
    {
      title: STUDY_CRF_TEXT.planAction,
      key: 'action',
      render: (_, row) =>
        row.existing ? (
          <div>
            <Radio.Group
              aria-label={row.title}
              value={choices[row.title]}
              onChange={(e) => setChoices((prev) => ({ ...prev, [row.title]: e.target.value as CrfExistingChoice }))}
              options={[
                {
                  value: 'version',
                  label: draft
                    ? AMENDMENT_TEXT.planDraft(row.version)
                    : STUDY_CRF_TEXT.planVersion(row.existing.currentVersion, row.existing.currentVersion + 1),
                },
                { value: 'new', label: STUDY_CRF_TEXT.planAsNew },
              ]}
            />
            {row.existing.hasData && <Tag color="warning">{STUDY_CRF_TEXT.planHasData}</Tag>}
          </div>
        ) : (
          <Tag color="success">{STUDY_CRF_TEXT.planCreate}</Tag>
        ),
    },
  ];
  const ready = allChosen(files ?? [], choices);
  return (
    <Modal
      open={files !== null}
      title={STUDY_CRF_TEXT.planTitle}
      width={820}
      okText={STUDY_CRF_TEXT.planConfirm}
      okButtonProps={{ disabled: !ready }}
      onOk={() => onConfirm(choices)}
      onCancel={onCancel}
      afterClose={() => setChoices({})}
      destroyOnHidden
    >
      <Alert type="warning" showIcon title={STUDY_CRF_TEXT.planHint} style={{ marginBottom: 12 }} />
      <Table<Row> size="small" rowKey="key" columns={columns} dataSource={rows} pagination={false} />
      {!ready && <div className="study-section-hint">{STUDY_CRF_TEXT.planChoose}</div>}
    </Modal>
  );
}
