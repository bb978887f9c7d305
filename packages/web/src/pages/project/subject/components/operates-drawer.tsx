import { useMemo, useState } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { Button, Drawer, Grid, Tag, type TableColumnsType } from 'antd';
import { crfRecordApi } from '../../../../api/crf.api';
import { subjectRecordApi, type AuditEvent, type SubjectRecordRow } from '../../../../api/subject.api';
import { AuditCard, AuditChange } from '../../../../components/audit-change';
import { PagedTable } from '../../../../components/paged-table';
import { SUBJECT_TEXT } from '../../../../locales/subject.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { saveDownload } from '../../../../utils/download';
import { operateItem } from '../operate-labels';
import { queryKeys } from '../../../../api/query-keys';

const ACTION_COLORS: Record<string, string> = {
  'subject.create': 'green',
  'subject.delete': 'red',
  'subject.restore': 'cyan',
  'subject.state': 'orange',
  'crf.delete': 'red',
  'crf.submit': 'blue',
  'doubt.open': 'volcano',
  'doubt.close': 'default',
};

/**
 * 操作记录 (SUBJ-28): the patient's audit trail, newest first, in the server's words (action names,
 * item titles, labels, units, file names); 导出 saves the same rows as CSV.
 */
export function OperatesDrawer({ record, onClose }: { record: SubjectRecordRow | null; onClose: () => void }) {
  const [exporting, setExporting] = useState(false);
  const screens = Grid.useBreakpoint();
  // Below 992 px each row is a card (six columns do not fit); below 1200 px the drawer takes the width.
  const cards = screens.lg === false;
  const columns = useMemo<TableColumnsType<AuditEvent>>(
    () =>
      cards
        ? [
            {
              title: SUBJECT_TEXT.operates,
              key: 'card',
              render: (_: unknown, event) => (
                <AuditCard row={{ ...event, time: formatDate(event.createTime), item: operateItem(event) }} />
              ),
            },
          ]
        : [
            {
              title: SUBJECT_TEXT.operateTime,
              dataIndex: 'createTime',
              width: 160,
              render: (value: string) => formatDate(value),
            },
            { title: SUBJECT_TEXT.operateUser, dataIndex: 'userName', width: 150 },
            {
              title: SUBJECT_TEXT.operateAction,
              dataIndex: 'actionName',
              width: 110,
              render: (name: string, event) => <Tag color={ACTION_COLORS[event.action] ?? 'default'}>{name}</Tag>,
            },
            {
              title: SUBJECT_TEXT.operateItem,
              key: 'item',
              width: 160,
              render: (_: unknown, event) => operateItem(event) || '—',
            },
            {
              title: SUBJECT_TEXT.operateChange,
              key: 'change',
              width: 280,
              render: (_: unknown, event) => <AuditChange row={event} />,
            },
            {
              title: SUBJECT_TEXT.operateReason,
              dataIndex: 'reason',
              width: 150,
              render: (reason: string | null) => reason || '—',
            },
          ],
    [cards],
  );

  const exportCsv = async (subjectRecordId: number, code: string) => {
    setExporting(true);
    try {
      saveDownload(await crfRecordApi.exportAudit({ subjectRecordId }), `稽查轨迹-${code}.csv`);
    } finally {
      setExporting(false);
    }
  };

  return (
    <Drawer
      open={Boolean(record)}
      title={record ? SUBJECT_TEXT.operatesTitle(record.subjectName, record.identificationCode) : ''}
      size={screens.xl === false ? '100%' : 1120}
      onClose={onClose}
      destroyOnHidden
      extra={
        record && (
          <Button
            size="small"
            icon={<DownloadOutlined aria-hidden />}
            loading={exporting}
            onClick={() => void exportCsv(record.subjectRecordId, record.identificationCode)}
          >
            {SUBJECT_TEXT.operatesExport}
          </Button>
        )
      }
    >
      {record && (
        <PagedTable<AuditEvent>
          rowKey="id"
          size="small"
          showIndex={!cards}
          // Cards take the drawer's width and wrap; the table scrolls sideways when it must.
          scroll={cards ? {} : { x: 'max-content' }}
          tableLayout={cards ? 'fixed' : undefined}
          showHeader={!cards}
          columns={columns}
          queryKey={queryKeys.subjectRecord.operates(record.subjectRecordId)}
          fetchPage={(paging) =>
            subjectRecordApi.operates({ ...paging, subjectRecordId: record.subjectRecordId }).then((res) => res.data)
          }
        />
      )}
    </Drawer>
  );
}
