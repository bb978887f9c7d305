import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Radio, Tag } from 'antd';
import { AE_GRADES, aeLabel, SAE_STATE_NAMES, SAE_STATES, type SaeExportFormat, type SaeState } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { safetyApi, type SaeListFilter, type SaeReport } from '../../../../api/safety.api';
import { actionsColumn, TablePage, type PageColumn } from '../../../../components/table-page';
import { SAFETY_TEXT as t } from '../../../../locales/safety.zh-CN';
import { useRealtimeEvent } from '../../../../realtime/realtime-events';
import { saveDownload } from '../../../../utils/download';
import { formatDate } from '../../../../utils/format-date';

/** The clock's text is the server's at the time of reading: the list is read again this often. */
export const SAE_REFRESH_MS = 60_000;

/** Awareness is entered to the minute; 150 wide holds it uncut (the datetime kind's 160 is for seconds). */
const MINUTE_FORMAT = 'YYYY-MM-DD HH:mm';
const STATE_COLORS: Record<SaeState, string> = { pending: 'orange', submitted: 'green', withdrawn: 'default' };
type StateChoice = SaeState | 'all';

/** 剩余时间: the server's words; red when the deadline has passed unsubmitted or the report went late. */
export function SaeClockCell({ report }: { report: Pick<SaeReport, 'clockState' | 'clockText'> }) {
  if (report.clockState === 'overdue' || report.clockState === 'submittedLate') {
    return <Tag color="red">{report.clockText}</Tag>;
  }
  return <>{report.clockText}</>;
}

/** The report ids a newer version of the same event supersedes among the rows read (no follow-up from those). */
function supersededIn(rows: readonly SaeReport[]): Set<number> {
  const newest = new Map<number, number>();
  for (const row of rows) newest.set(row.crfDataRecordId, Math.max(newest.get(row.crfDataRecordId) ?? 0, row.version));
  return new Set(rows.filter((row) => row.version < newest.get(row.crfDataRecordId)!).map((row) => row.saeReportId));
}

/**
 * 不良事件 (issue 37): the study's SAE reports the caller sees, pending first by deadline. 提交报告 sends a pending
 * report, 随访报告 opens the next version of the latest submitted one. The time left is the server's (its clock
 * decides what is late); the list is read again every minute and when a new report is pushed.
 */
export function SaeReports({ studyId }: { studyId: number }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [state, setState] = useState<StateChoice>('all');
  // Versions a newer one of the same event follows, among the rows read (kept by the last read of the list).
  const [superseded, setSuperseded] = useState<ReadonlySet<number>>(new Set());
  const listKey = queryKeys.safety.list(studyId);
  const module = useQuery({
    queryKey: queryKeys.safety.module(studyId),
    queryFn: () => safetyApi.module(studyId).then((res) => res.data),
  });

  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.safety.all() });
  useEffect(() => {
    const timer = setInterval(
      () => void queryClient.invalidateQueries({ queryKey: queryKeys.safety.list(studyId) }),
      SAE_REFRESH_MS,
    );
    return () => clearInterval(timer);
  }, [queryClient, studyId]);
  useRealtimeEvent('sae', (push) => {
    if (push.studyId === studyId) refresh();
  });

  const act = async (run: () => Promise<{ msg: string }>) => {
    const res = await run();
    void message.success(res.msg);
    refresh();
  };

  const columns: PageColumn<SaeReport>[] = [
    { title: t.code, dataIndex: 'identificationCode', width: 100 },
    { title: t.site, dataIndex: 'siteName', width: 110, hideOrder: 3 },
    { title: t.term, dataIndex: 'term', minWidth: 120 },
    {
      title: t.grade,
      dataIndex: 'grade',
      width: 110,
      hideOrder: 1,
      render: (grade: string) => (grade ? aeLabel(AE_GRADES, grade) : ''),
      text: (row) => (row.grade ? aeLabel(AE_GRADES, row.grade) : ''),
    },
    {
      title: t.awareAt,
      dataIndex: 'awareAt',
      width: 150,
      hideOrder: 2,
      render: (value: string) => formatDate(value, MINUTE_FORMAT),
    },
    {
      title: t.deadlineAt,
      dataIndex: 'deadlineAt',
      width: 150,
      render: (value: string) => formatDate(value, MINUTE_FORMAT),
    },
    {
      title: t.remaining,
      key: 'clock',
      width: 130,
      ellipsis: false,
      render: (_: unknown, row) => <SaeClockCell report={row} />,
    },
    {
      title: t.version,
      key: 'version',
      width: 100,
      render: (_: unknown, row) => t.versionOf(row.version, row.kind),
      text: (row) => t.versionOf(row.version, row.kind),
    },
    {
      title: t.state,
      dataIndex: 'state',
      kind: 'status',
      width: 80,
      render: (value: SaeState) => <Tag color={STATE_COLORS[value]}>{SAE_STATE_NAMES[value]}</Tag>,
    },
    actionsColumn<SaeReport>([
      {
        key: 'submit',
        label: t.submit,
        hidden: (row) => row.state !== 'pending',
        confirm: () => ({ title: t.submitConfirm, description: t.submitConfirmHint }),
        onClick: (row) => act(() => safetyApi.submit(studyId, row.saeReportId)),
      },
      {
        key: 'followup',
        label: t.followup,
        hidden: (row) => row.state !== 'submitted' || superseded.has(row.saeReportId),
        confirm: (row) => ({ title: t.followupConfirm, description: t.followupConfirmHint(row.version + 1) }),
        onClick: (row) => act(() => safetyApi.followup(studyId, row.saeReportId)),
      },
      {
        // The NMPA 严重不良事件报告表 as Word or PDF, or the CIOMS-I-like English form, of this version.
        key: 'export',
        label: t.exportReport,
        choices: [
          { key: 'docx', label: t.exportWord },
          { key: 'pdf', label: t.exportPdf },
          { key: 'cioms', label: t.exportCioms },
        ],
        onClick: async (row, choice) => {
          const format = (choice ?? 'docx') as SaeExportFormat;
          const res = await safetyApi.exportReport(studyId, row.saeReportId, format);
          const ext = format === 'pdf' ? 'pdf' : 'docx';
          saveDownload(res, `SAE-${row.identificationCode}-v${row.version}.${ext}`);
        },
      },
    ]),
  ];

  const filters: SaeListFilter = state === 'all' ? {} : { state };
  return (
    <>
      {module.data && !module.data.enabled && (
        <Alert type="info" showIcon title={t.moduleOffHint} style={{ marginBottom: 12 }} />
      )}
      <TablePage<SaeReport, SaeListFilter>
        // Another state starts the list again from page 1.
        key={state}
        name="sae-filter"
        rowKey="saeReportId"
        columns={columns}
        toolbar={
          <Radio.Group
            aria-label={t.stateFilter}
            optionType="button"
            value={state}
            onChange={(e) => setState(e.target.value as StateChoice)}
            options={[
              { value: 'all', label: t.all },
              ...SAE_STATES.map((value) => ({ value, label: SAE_STATE_NAMES[value] })),
            ]}
          />
        }
        queryKey={[...listKey, filters]}
        fetchPage={(query) =>
          safetyApi.list({ ...query, ...filters, studyId }).then((res) => {
            setSuperseded(supersededIn(res.data.list));
            return res.data;
          })
        }
      />
    </>
  );
}
