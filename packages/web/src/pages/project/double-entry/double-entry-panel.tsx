import { useState } from 'react';
import { Button, Form, Select, Tag } from 'antd';
import { useNavigate } from 'react-router';
import { DOUBLE_ENTRY_PAIR_STATE_LABELS, DOUBLE_ENTRY_PAIR_STATES } from '@ecrf/core';
import { doubleEntryApi, type DoubleEntryPair, type DoubleEntryPairState } from '../../../api/double-entry.api';
import { PagedTable } from '../../../components/paged-table';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DOUBLE_ENTRY_TEXT as t } from '../../../locales/double-entry.zh-CN';
import { formatDate } from '../../../utils/format-date';

const STATUS_COLORS: Record<DoubleEntryPairState, string> = {
  entry1: 'default',
  entry2: 'processing',
  pending: 'warning',
  reconciled: 'success',
};
const STATUS_OPTIONS = DOUBLE_ENTRY_PAIR_STATES.map((value) => ({
  value,
  label: DOUBLE_ENTRY_PAIR_STATE_LABELS[value],
}));

/** The CRF page of the pair's patient and form, where the entry and the 双录入核对 dialog live. */
export function pairUrl(pair: Pick<DoubleEntryPair, 'subjectRecordId' | 'crfId' | 'crfDataRecordId'>): string {
  const record = pair.crfDataRecordId ? `&crfDataRecordId=${pair.crfDataRecordId}` : '';
  return `/crf/${pair.subjectRecordId}?crfId=${pair.crfId}${record}`;
}

const entryCell = (entry: DoubleEntryPair['entry1']) =>
  entry ? (
    <>
      <div>{entry.userName}</div>
      <Tag color={entry.state === 'done' ? 'green' : 'default'}>{t.entryState(entry.state)}</Tag>
    </>
  ) : (
    <span className="doubt-list-sub">{t.notStarted}</span>
  );

/**
 * 双份录入 (issue 37) in the query list: the study's double-entry pairs for the reconciler (双录入核对), with how far
 * each is (第一次录入中, 第二次录入中, 待核对, 已核对), filtered by status; 核对 opens the patient's form, where the
 * reconcile dialog is. The server keeps the caller's site scope.
 */
export function DoubleEntryListPanel({ studyId }: { studyId: number }) {
  const navigate = useNavigate();
  const [status, setStatus] = useState<DoubleEntryPairState | undefined>();
  const filters = status ? { status } : {};

  return (
    <>
      <Form layout="inline" name="double-entry-filter" className="page-filters">
        <Form.Item label={t.listStatus}>
          <Select
            allowClear
            aria-label={t.listStatus}
            options={STATUS_OPTIONS}
            placeholder={COMMON_TEXT.selectPlaceholder}
            style={{ width: 140 }}
            value={status}
            onChange={(value?: DoubleEntryPairState) => setStatus(value)}
          />
        </Form.Item>
      </Form>
      <PagedTable<DoubleEntryPair>
        rowKey={(row) =>
          `${row.subjectRecordId}-${row.crfId}-${row.crfDataRecordId ?? 0}-${row.status}-${row.updateDate}`
        }
        showIndex
        size="middle"
        scroll={{ x: 1100 }}
        queryKey={['double-entry', 'pending', studyId]}
        filters={filters}
        fetchPage={(paging) => doubleEntryApi.pending({ ...paging, ...filters, studyId }).then((res) => res.data)}
        columns={[
          { title: t.listPatient, dataIndex: 'identificationCode', width: 110 },
          { title: t.listName, dataIndex: 'subjectName', width: 80 },
          { title: t.listSite, dataIndex: 'siteName', width: 100, render: (value: string | null) => value || '—' },
          { title: t.listForm, dataIndex: 'crfTitle', width: 120 },
          { title: t.listEntry1, key: 'entry1', width: 140, render: (_: unknown, row) => entryCell(row.entry1) },
          { title: t.listEntry2, key: 'entry2', width: 140, render: (_: unknown, row) => entryCell(row.entry2) },
          {
            title: t.listStatus,
            dataIndex: 'status',
            width: 90,
            render: (value: DoubleEntryPairState) => (
              <Tag color={STATUS_COLORS[value]}>{DOUBLE_ENTRY_PAIR_STATE_LABELS[value]}</Tag>
            ),
          },
          { title: t.listTime, dataIndex: 'updateDate', width: 170, render: (value: string) => formatDate(value) },
          {
            title: COMMON_TEXT.actions,
            key: 'actions',
            fixed: 'right',
            width: 80,
            render: (_: unknown, row) => (
              <Button type="link" size="small" onClick={() => void navigate(pairUrl(row))}>
                {row.status === 'pending' ? t.listGo : t.listView}
              </Button>
            ),
          },
        ]}
      />
    </>
  );
}
