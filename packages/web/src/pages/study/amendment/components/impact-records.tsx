import type { Key } from 'react';
import { Link } from 'react-router';
import { Space, Tag, Tooltip, type TableColumnsType } from 'antd';
import { LockOutlined } from '@ant-design/icons';
import { amendmentApi, type ImpactRecordRow, type ImpactTarget } from '../../../../api/amendment.api';
import { queryKeys } from '../../../../api/query-keys';
import { PagedTable } from '../../../../components/paged-table';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';
import { kindLabel, valueText } from '../amendment-state';
import type { FindingFilter } from './impact-findings';

export const recordRowKey = (row: ImpactRecordRow) => `${row.crfDataRecordId}:${row.itemName}:${row.kind}`;

function States({ row }: { row: ImpactRecordRow }) {
  return (
    <Space size={4} wrap>
      {row.submitted && <Tag color="blue">{AMENDMENT_TEXT.stateSubmitted}</Tag>}
      {row.signed && <Tag color="gold">{AMENDMENT_TEXT.stateSigned}</Tag>}
      {row.sdvVerified && <Tag color="green">{AMENDMENT_TEXT.stateSdv}</Tag>}
      {row.locked && (
        <Tooltip title={AMENDMENT_TEXT.lockedNeverMoved}>
          <Tag icon={<LockOutlined aria-hidden />} color="red">
            {AMENDMENT_TEXT.stateLocked}
          </Tag>
        </Tooltip>
      )}
    </Space>
  );
}

const columns: TableColumnsType<ImpactRecordRow> = [
  {
    title: AMENDMENT_TEXT.identificationCode,
    dataIndex: 'identificationCode',
    width: 130,
    render: (code: string, row) => <Link to={`/crf/${row.subjectRecordId}`}>{code}</Link>,
  },
  { title: AMENDMENT_TEXT.site, dataIndex: 'siteName', width: 120, render: (site: string | null) => site ?? '—' },
  {
    title: AMENDMENT_TEXT.item,
    key: 'item',
    width: 180,
    render: (_: unknown, row) => (
      <>
        {row.label}
        <span className="amendment-item-name">{row.itemName}</span>
      </>
    ),
  },
  { title: AMENDMENT_TEXT.findingKind, dataIndex: 'kind', width: 200, render: kindLabel },
  { title: AMENDMENT_TEXT.oldValue, dataIndex: 'oldValue', width: 140, render: valueText },
  { title: AMENDMENT_TEXT.newValue, dataIndex: 'newValue', width: 140, render: valueText },
  { title: AMENDMENT_TEXT.state, key: 'state', width: 200, render: (_: unknown, row) => <States row={row} /> },
];

/** What the parent keeps of a selection: each chosen row's key with its record. */
export type RecordSelection = ReadonlyMap<string, number>;

/**
 * 受影响的记录: the values the report found, one row per record and item, paged on the server, narrowed to one
 * finding when one is picked. With `selection` the rows can be ticked (a locked record cannot: it is never moved),
 * across pages, for 迁移所选记录.
 */
export function ImpactRecords({
  target,
  filter,
  selection,
  onSelect,
}: {
  target: ImpactTarget;
  filter: FindingFilter | null;
  selection?: RecordSelection;
  onSelect?: (next: RecordSelection) => void;
}) {
  return (
    <PagedTable<ImpactRecordRow>
      aria-label={AMENDMENT_TEXT.records}
      rowKey={recordRowKey}
      columns={columns}
      queryKey={queryKeys.amendment.impactRecords(target)}
      filters={filter ?? {}}
      fetchPage={(paging) => amendmentApi.impactRecords(target, { ...(filter ?? {}), ...paging })}
      scroll={{ x: 1100 }}
      rowSelection={
        selection && onSelect
          ? {
              preserveSelectedRowKeys: true,
              selectedRowKeys: [...selection.keys()],
              getCheckboxProps: (row) => ({ disabled: row.locked, 'aria-label': row.identificationCode }),
              onChange: (keys: Key[], rows: Array<ImpactRecordRow | undefined>) => {
                const next = new Map<string, number>();
                keys.forEach((key, i) => {
                  const id = rows[i]?.crfDataRecordId ?? selection.get(String(key));
                  if (id !== undefined) next.set(String(key), id);
                });
                onSelect(next);
              },
            }
          : undefined
      }
    />
  );
}
