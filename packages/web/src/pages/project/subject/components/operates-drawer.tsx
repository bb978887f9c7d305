import { useMemo, useState } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { Button, Drawer, Tag, type TableColumnsType } from 'antd';
import { crfRecordApi } from '../../../../api/crf.api';
import { subjectRecordApi, type AuditEvent, type SubjectRecordRow } from '../../../../api/subject.api';
import { AuditChange } from '../../../../components/audit-change';
import { PagedTable } from '../../../../components/paged-table';
import { T } from '../../../../locales/zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { saveDownload } from '../../../study/crf/download';
import { operateItem } from '../operate-labels';

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
  const columns = useMemo<TableColumnsType<AuditEvent>>(
    () => [
      {
        title: T.subject.operateTime,
        dataIndex: 'createTime',
        width: 160,
        render: (value: string) => formatDate(value),
      },
      { title: T.subject.operateUser, dataIndex: 'userName', width: 150 },
      {
        title: T.subject.operateAction,
        dataIndex: 'actionName',
        width: 110,
        render: (name: string, event) => <Tag color={ACTION_COLORS[event.action] ?? 'default'}>{name}</Tag>,
      },
      {
        title: T.subject.operateItem,
        key: 'item',
        width: 160,
        render: (_: unknown, event) => operateItem(event) || '—',
      },
      {
        title: T.subject.operateChange,
        key: 'change',
        width: 280,
        render: (_: unknown, event) => <AuditChange row={event} />,
      },
      {
        title: T.subject.operateReason,
        dataIndex: 'reason',
        width: 150,
        render: (reason: string | null) => reason || '—',
      },
    ],
    [],
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
      title={record ? T.subject.operatesTitle(record.subjectName, record.identificationCode) : ''}
      size={1120}
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
            {T.subject.operatesExport}
          </Button>
        )
      }
    >
      {record && (
        <PagedTable<AuditEvent>
          rowKey="id"
          size="small"
          columns={columns}
          queryKey={['subject-record', 'operates', record.subjectRecordId]}
          fetchPage={(paging) =>
            subjectRecordApi.operates({ ...paging, subjectRecordId: record.subjectRecordId }).then((res) => res.data)
          }
        />
      )}
    </Drawer>
  );
}
