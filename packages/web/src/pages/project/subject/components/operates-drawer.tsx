import { useMemo } from 'react';
import { Drawer, Tag, type TableColumnsType } from 'antd';
import { subjectRecordApi, type AuditEvent, type SubjectRecordRow } from '../../../../api/subject.api';
import { PagedTable } from '../../../../components/paged-table';
import { T } from '../../../../locales/zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { actionLabel, operateChange, operateItem, type OperateContext } from '../operate-labels';

const ACTION_COLORS: Record<string, string> = {
  'subject.create': 'green',
  'subject.delete': 'red',
  'subject.restore': 'cyan',
  'subject.state': 'orange',
  'crf.delete': 'red',
  'crf.submit': 'blue',
};

/** 操作记录 (SUBJ-28): the patient's audit trail, newest first, in words a nurse reads. */
export function OperatesDrawer({
  record,
  context,
  onClose,
}: {
  record: SubjectRecordRow | null;
  context: OperateContext;
  onClose: () => void;
}) {
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
        dataIndex: 'action',
        width: 110,
        render: (action: string) => <Tag color={ACTION_COLORS[action] ?? 'default'}>{actionLabel(action)}</Tag>,
      },
      {
        title: T.subject.operateItem,
        key: 'item',
        width: 130,
        render: (_: unknown, event) => operateItem(event, context) || '—',
      },
      {
        title: T.subject.operateChange,
        key: 'change',
        width: 260,
        render: (_: unknown, event) => (
          <span style={{ wordBreak: 'break-all' }}>{operateChange(event, context) || '—'}</span>
        ),
      },
      {
        title: T.subject.operateReason,
        dataIndex: 'reason',
        width: 150,
        render: (reason: string | null) => reason || '—',
      },
    ],
    [context],
  );

  return (
    <Drawer
      open={Boolean(record)}
      title={record ? T.subject.operatesTitle(record.subjectName, record.identificationCode) : ''}
      size={1120}
      onClose={onClose}
      destroyOnHidden
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
