import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Result, Space, Spin } from 'antd';
import { DownloadOutlined, UnlockOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { randomizationApi, type SelectedRow } from '../../../api/randomization.api';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { RANDOMIZATION_TEXT } from '../../../locales/randomization.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { saveDownload } from '../../../utils/download';
import { StudyAuthButton } from '../components/study-auth-button';
import { armText, UnblindedMark } from '../randomization/components/randomization-result';
import { EmergencyDialog, UnblindAllDialog } from '../randomization/components/unblind-dialogs';
import { RAND_BUTTONS } from '../randomization/rand-access';
import { useProjectStudy } from '../use-project-study';
import '../randomization/randomization.css';
import { TestRandomizationTag } from '../../../components/test-data-tag';

const t = RANDOMIZATION_TEXT;

/**
 * 随机结果 (RAND-01): the randomized patients with their numbers, time, stratum and arm (or blinded code) as the
 * user may see them, the 已紧急揭盲 mark, and who randomized; 紧急揭盲 per patient and 全部揭盲 at the end.
 */
export default function RandomlySelectedPage() {
  const { studyId, study, query, can } = useProjectStudy();
  const [emergency, setEmergency] = useState<SelectedRow | null>(null);
  const [all, setAll] = useState(false);
  const [exporting, setExporting] = useState(false);
  const config = useQuery({
    queryKey: queryKeys.randomization.config(studyId ?? 0),
    queryFn: () => randomizationApi.config(studyId!).then((res) => res.data),
    enabled: studyId !== null && Boolean(study),
  });

  if (studyId === null || query.isError || config.isError) {
    return (
      <div className="page-card">
        <Result status="warning" title={MSG.forbidden} />
      </div>
    );
  }
  if (!study || !config.data) {
    return (
      <div className="page-card">
        <Spin style={{ display: 'block', margin: '48px auto' }} />
      </div>
    );
  }
  const view = config.data;
  const blinded = Boolean(view.config?.blinded) && !view.unblindedAll;
  const exportSelected = async () => {
    setExporting(true);
    try {
      saveDownload(await randomizationApi.exportSelected(studyId), '随机结果.xlsx');
    } finally {
      setExporting(false);
    }
  };
  const columns: PageColumn<SelectedRow>[] = [
    {
      title: t.randomizationNo,
      dataIndex: 'randomizationNo',
      width: 100,
      render: (v: string, r: SelectedRow) => (
        <>
          <span className="rand-code">{v}</span> <TestRandomizationTag test={r.test} />
        </>
      ),
      text: (r) => r.randomizationNo,
    },
    {
      title: t.code,
      dataIndex: 'identificationCode',
      width: 110,
      search: { name: 'keyword', label: t.code, width: 180 },
    },
    { title: t.patientName, dataIndex: 'subjectName', width: 90 },
    { title: t.dept, dataIndex: 'deptName', minWidth: 120, hideOrder: 1 },
    { title: t.stratum, dataIndex: 'stratumLabel', minWidth: 120 },
    {
      title: t.armOrCode,
      key: 'arm',
      width: 230,
      // The mark wraps below the code rather than hiding under an ellipsis.
      ellipsis: false,
      render: (_: unknown, row) => (
        <span className="rand-code">
          {armText(row)}
          {row.emergencyUnblinded && <UnblindedMark />}
        </span>
      ),
      text: (row) => `${armText(row)}${row.emergencyUnblinded ? ` ${t.emergencyMark}` : ''}`,
    },
    {
      title: t.randomizationTime,
      dataIndex: 'randomizationTime',
      kind: 'datetime',
      render: (v: string) => formatDate(v),
    },
    { title: t.randomizeBy, dataIndex: 'randomizeBy', width: 90 },
    actionsColumn<SelectedRow>([
      {
        key: 'emergency',
        label: t.emergency,
        danger: true,
        allowed: can(RAND_BUTTONS.emergency),
        hidden: () => !blinded,
        onClick: (row) => setEmergency(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{t.selectedTitle}</h2>
      {view.unblindedAll && (
        <Alert
          type="info"
          showIcon
          className="rand-alert"
          title={t.unblindedAllNotice(formatDate(view.unblindedAll.unblindTime), view.unblindedAll.unblindBy)}
        />
      )}
      <TablePage<SelectedRow, { keyword?: string }>
        name="rand-selected-filter"
        rowKey="randomizationId"
        columns={blinded ? columns : columns.filter((c) => c.kind !== 'actions')}
        queryKey={queryKeys.randomization.selected(studyId)}
        fetchPage={(paging) => randomizationApi.selected({ ...paging, studyId }).then((res) => res.data)}
        toolbar={
          <Space wrap>
            <StudyAuthButton
              allowed
              icon={<DownloadOutlined aria-hidden />}
              loading={exporting}
              onClick={() => void exportSelected()}
            >
              {t.export}
            </StudyAuthButton>
            {blinded && view.configured && (
              <StudyAuthButton
                allowed={can(RAND_BUTTONS.unblindAll)}
                danger
                icon={<UnlockOutlined aria-hidden />}
                onClick={() => setAll(true)}
              >
                {t.unblindAll}
              </StudyAuthButton>
            )}
          </Space>
        }
      />
      <EmergencyDialog studyId={studyId} row={emergency} onClose={() => setEmergency(null)} />
      <UnblindAllDialog studyId={studyId} studyName={study.studyName} open={all} onClose={() => setAll(false)} />
    </div>
  );
}
