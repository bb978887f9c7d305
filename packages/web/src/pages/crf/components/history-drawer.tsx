import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { DownloadOutlined } from '@ant-design/icons';
import { Button, Drawer, Empty, Grid, Spin, Table, Tag } from 'antd';
import type { CrfNode } from '@ecrf/core';
import { crfRecordApi, type CrfAuditRow } from '../../../api/crf.api';
import { AuditChange } from '../../../components/audit-change';
import { ScrollRegion } from '../../../components/scroll-region';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { saveDownload } from '../../../utils/download';

const t = CRF_PAGE_TEXT;

export interface HistoryTarget {
  crfDataRecordId: number;
  /** One item; absent for the whole form's history. */
  itemName?: string;
  title: string;
}

/**
 * The audit trail of an item or a form: who, when, what (in words), old → new with labels, units and
 * file names as the server words them, reason, CRF version; 导出 saves the same rows as CSV.
 */
export function HistoryDrawer({
  target,
  phone = false,
  onClose,
}: {
  target: HistoryTarget | null;
  /** Not needed any more: the server words each row in its own CRF version. */
  nodes?: ReadonlyMap<string, CrfNode>;
  /** A phone: the whole width, each change as a card instead of a seven-column table. */
  phone?: boolean;
  onClose: () => void;
}) {
  const query = useQuery({
    queryKey: queryKeys.crfRecord.audit(target?.crfDataRecordId, target?.itemName ?? null),
    queryFn: () => crfRecordApi.audit(target!.crfDataRecordId, target!.itemName).then((res) => res.data),
    enabled: target !== null,
  });
  const rows = query.data ?? [];
  // Seven columns need a wide screen: below 992 px (tablets too) each change is a card.
  const screens = Grid.useBreakpoint();
  const cards = phone || screens.lg === false;
  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    if (!target) return;
    setExporting(true);
    try {
      const res = await crfRecordApi.exportAudit({
        crfDataRecordId: target.crfDataRecordId,
        ...(target.itemName ? { itemName: target.itemName } : {}),
      });
      saveDownload(res, `稽查轨迹-${target.title}.csv`);
    } finally {
      setExporting(false);
    }
  };
  const title = target ? (target.itemName ? t.historyOf(target.title) : t.formHistory) : '';
  return (
    <Drawer
      open={target !== null}
      title={title}
      extra={
        <Button
          size="small"
          icon={<DownloadOutlined aria-hidden />}
          loading={exporting}
          disabled={rows.length === 0}
          onClick={() => void exportCsv()}
        >
          {t.historyExport}
        </Button>
      }
      // The change column needs room for old → new (labels, units, file names): wider than the item's own list.
      size={cards ? '100%' : target?.itemName ? 'min(880px, 100vw)' : 'min(1080px, 100vw)'}
      onClose={onClose}
      destroyOnHidden
      // The region inside scrolls instead, so that a keyboard can reach and scroll a trail with nothing to click.
      styles={{ body: { padding: 0, overflow: 'hidden' } }}
    >
      <ScrollRegion className="crf-history-scroll" label={title}>
        {rows.length === 0 && !query.isFetching ? (
          <Empty description={t.historyEmpty} />
        ) : cards ? (
          <Spin spinning={query.isFetching}>
            <ul className="crf-history-cards">
              {rows.map((row) => (
                <li key={row.id} className="crf-history-card">
                  <div className="crf-history-card-head">
                    <Tag>{row.actionName}</Tag>
                    <span>{row.userName}</span>
                    <span className="crf-history-card-time">{formatDate(row.createTime)}</span>
                  </div>
                  {!target?.itemName && row.itemTitle && <div className="crf-history-card-item">{row.itemTitle}</div>}
                  <div>
                    <AuditChange row={row} />
                  </div>
                  {row.reason && (
                    <div className="crf-history-card-reason">
                      {t.historyReason}：{row.reason}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          </Spin>
        ) : (
          <Table<CrfAuditRow>
            size="small"
            rowKey="id"
            loading={query.isFetching}
            pagination={false}
            dataSource={rows}
            className="crf-history-table"
            // The declared widths hold, so a long reason (an import's file SHA-256) wraps instead of widening the table.
            tableLayout="fixed"
            columns={[
              { title: t.historyTime, dataIndex: 'createTime', width: 160, render: (v: string) => formatDate(v) },
              { title: t.historyUser, dataIndex: 'userName', width: 140 },
              {
                title: t.historyAction,
                dataIndex: 'actionName',
                width: 104,
                render: (name: string) => <Tag>{name}</Tag>,
              },
              ...(target?.itemName
                ? []
                : [
                    {
                      title: t.historyItem,
                      dataIndex: 'itemTitle',
                      width: 140,
                    },
                  ]),
              {
                title: t.historyChange,
                key: 'change',
                render: (_: unknown, row: CrfAuditRow) => <AuditChange row={row} />,
              },
              { title: t.historyReason, dataIndex: 'reason', width: 140 },
              { title: t.historyVersion, dataIndex: 'crfVersion', width: 76, align: 'center' },
            ]}
          />
        )}
      </ScrollRegion>
    </Drawer>
  );
}
