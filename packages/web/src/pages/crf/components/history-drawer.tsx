import { useQuery } from '@tanstack/react-query';
import { Drawer, Empty, Table, Tag } from 'antd';
import type { CrfNode } from '@ecrf/core';
import { crfRecordApi, type CrfAuditRow } from '../../../api/crf.api';
import { T } from '../../../locales/zh-CN';
import { formatDate } from '../../../utils/format-date';
import { formatLooseValue, itemTitle } from '../crf-values';

const t = T.crfPage;

export interface HistoryTarget {
  crfDataRecordId: number;
  /** One item; absent for the whole form's history. */
  itemName?: string;
  title: string;
}

/** The audit trail of an item or a form: who, when, old → new, reason, CRF version. */
export function HistoryDrawer({
  target,
  nodes,
  onClose,
}: {
  target: HistoryTarget | null;
  nodes: ReadonlyMap<string, CrfNode>;
  onClose: () => void;
}) {
  const query = useQuery({
    queryKey: ['crf-record', 'audit', target?.crfDataRecordId, target?.itemName ?? null],
    queryFn: () => crfRecordApi.audit(target!.crfDataRecordId, target!.itemName).then((res) => res.data),
    enabled: target !== null,
  });
  const rows = query.data ?? [];
  const value = (row: CrfAuditRow, v: unknown) => {
    const text = formatLooseValue(nodes, row.itemName, v);
    return text || <span className="crf-history-empty">{t.empty}</span>;
  };
  return (
    <Drawer
      open={target !== null}
      title={target ? (target.itemName ? t.historyOf(target.title) : t.formHistory) : ''}
      size={target?.itemName ? 720 : 900}
      onClose={onClose}
      destroyOnHidden
    >
      {rows.length === 0 && !query.isFetching ? (
        <Empty description={t.historyEmpty} />
      ) : (
        <Table<CrfAuditRow>
          size="small"
          rowKey="id"
          loading={query.isFetching}
          pagination={false}
          dataSource={rows}
          className="crf-history-table"
          columns={[
            { title: t.historyTime, dataIndex: 'createTime', width: 170, render: (v: string) => formatDate(v) },
            { title: t.historyUser, dataIndex: 'userName', width: 150 },
            {
              title: t.historyAction,
              dataIndex: 'action',
              width: 110,
              render: (a: string) => <Tag>{t.historyActions[a] ?? a}</Tag>,
            },
            ...(target?.itemName
              ? []
              : [
                  {
                    title: t.historyItem,
                    dataIndex: 'itemName',
                    width: 140,
                    render: (name: string | null) => (name ? itemTitle(nodes, name) : ''),
                  },
                ]),
            {
              title: t.historyChange,
              key: 'change',
              render: (_: unknown, row: CrfAuditRow) =>
                row.action === 'item.update' ? (
                  <span className="crf-history-change">
                    <span className="crf-history-old">{value(row, row.oldValue)}</span>
                    <span aria-hidden> → </span>
                    <span className="crf-history-new">{value(row, row.newValue)}</span>
                  </span>
                ) : null,
            },
            { title: t.historyReason, dataIndex: 'reason', width: 160 },
            { title: t.historyVersion, dataIndex: 'crfVersion', width: 80, align: 'center' },
          ]}
        />
      )}
    </Drawer>
  );
}
