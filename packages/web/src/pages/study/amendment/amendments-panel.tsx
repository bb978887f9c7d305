import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { Table, Tag, type TableColumnsType } from 'antd';
import { amendmentApi, type Amendment } from '../../../api/amendment.api';
import { queryKeys } from '../../../api/query-keys';
import { RowActions } from '../../../components/table-page';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { impactHref } from './amendment-state';
import { MigrateDialog } from './components/migrate-dialog';
import './amendment.css';

/**
 * 方案修订 (项目配置): every amendment of the study, newest first as the server answers them, with the live records
 * still on older versions; 查看影响 opens the report over those records, 迁移数据 moves them.
 */
export function AmendmentsPanel({ studyId }: { studyId: number }) {
  const navigate = useNavigate();
  const [migrating, setMigrating] = useState<Amendment | null>(null);
  const list = useQuery({
    queryKey: queryKeys.amendment.list(studyId),
    queryFn: () => amendmentApi.list(studyId).then((res) => res.data),
  });

  const columns: TableColumnsType<Amendment> = [
    { title: AMENDMENT_TEXT.name, dataIndex: 'name', width: 200 },
    {
      title: AMENDMENT_TEXT.kind,
      dataIndex: 'kind',
      width: 100,
      render: (kind: Amendment['kind']) => (kind === 'crf' ? AMENDMENT_TEXT.kindCrf : AMENDMENT_TEXT.kindFollow),
    },
    { title: AMENDMENT_TEXT.form, dataIndex: 'crfTitle', width: 160, render: (title: string | null) => title ?? '—' },
    {
      title: AMENDMENT_TEXT.versions,
      key: 'versions',
      width: 160,
      render: (_: unknown, row) => AMENDMENT_TEXT.versionsOf(row.fromVersion, row.toVersion),
    },
    {
      title: AMENDMENT_TEXT.remaining,
      dataIndex: 'remaining',
      width: 110,
      align: 'right',
      render: (remaining: number, row) =>
        row.kind === 'crf' ? <Tag color={remaining > 0 ? 'orange' : 'default'}>{remaining}</Tag> : '—',
    },
    { title: AMENDMENT_TEXT.createdBy, dataIndex: 'createdByName', width: 100, render: (name) => name ?? '—' },
    { title: AMENDMENT_TEXT.createdAt, dataIndex: 'createdAt', width: 170, render: (time: string) => formatDate(time) },
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      width: 180,
      fixed: 'right',
      render: (_: unknown, row) => (
        <RowActions<Amendment>
          row={row}
          actions={[
            {
              key: 'impact',
              label: AMENDMENT_TEXT.viewImpact,
              hidden: (a) => a.kind !== 'crf',
              onClick: (a) => navigate(impactHref({ studyId, amendmentId: a.id })),
            },
            {
              key: 'migrate',
              label: AMENDMENT_TEXT.migrate,
              code: 'study:crf',
              hidden: (a) => a.kind !== 'crf',
              disabled: (a) => a.remaining === 0,
              onClick: (a) => setMigrating(a),
            },
          ]}
        />
      ),
    },
  ];

  return (
    <section aria-label={AMENDMENT_TEXT.tab}>
      <p className="study-section-hint">{AMENDMENT_TEXT.listHint}</p>
      <Table<Amendment>
        size="middle"
        rowKey="id"
        columns={columns}
        dataSource={list.data ?? []}
        loading={list.isLoading}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: AMENDMENT_TEXT.none }}
      />
      <MigrateDialog studyId={studyId} amendment={migrating} onClose={() => setMigrating(null)} />
    </section>
  );
}
