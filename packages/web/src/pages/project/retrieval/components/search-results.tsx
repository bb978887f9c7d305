import type { TableColumnsType } from 'antd';
import { Link } from 'react-router';
import { searchColumnKey, type SearchColumn } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { ApiError } from '../../../../api/request';
import { searchApi, type SearchDics, type SearchRow } from '../../../../api/search.api';
import { PagedTable } from '../../../../components/paged-table';
import { EllipsisText } from '../../../../components/table-page/ellipsis-text';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import { columnValue, fieldInfo } from '../search-draft';
import type { Submitted } from '../use-stored-search';

const t = RETRIEVAL_TEXT;

export interface SearchResultsProps {
  studyId: number;
  dics: SearchDics | undefined;
  /** The search last run, or null before any. */
  submitted: Submitted | null;
  /** How many patients it found, once its page came back. */
  total: number | null;
  onTotal: (total: number | null) => void;
}

/** 检索结果: the count, the hints on repeatable forms and list groups, and the paged patients with their casebook links. */
export function SearchResults({ studyId, dics, submitted, total, onTotal }: SearchResultsProps) {
  const titleOf = (column: SearchColumn) => {
    const info = dics ? fieldInfo(dics, columnValue(column)) : null;
    if (column.kind === 'patient') return info?.title ?? column.field;
    const crf = dics?.crfs.find((c) => c.crfId === column.crfId);
    return `${crf?.title ?? ''} · ${info?.title ?? column.itemName}`;
  };

  const resultColumns: TableColumnsType<SearchRow> = [
    {
      title: t.code,
      dataIndex: 'identificationCode',
      width: 140,
      render: (code: string, row) => <Link to={`/crf/${row.subjectRecordId}`}>{code}</Link>,
    },
    ...(submitted?.columns ?? []).map((column) => {
      const key = searchColumnKey(column);
      return {
        title: <EllipsisText text={titleOf(column)} />,
        key,
        width: column.kind === 'patient' ? 120 : 180,
        ellipsis: { showTitle: false },
        render: (_: unknown, row: SearchRow) => <EllipsisText text={row.cells[key] ?? ''} />,
      };
    }),
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      fixed: 'right',
      width: 110,
      render: (_: unknown, row) => <Link to={`/crf/${row.subjectRecordId}`}>{t.openCasebook}</Link>,
    },
  ];

  return (
    <section aria-label={t.results} className="retrieval-results">
      <h3 className="retrieval-results-title">
        {t.results}
        {submitted && total !== null && <span className="retrieval-count">{t.found(total)}</span>}
      </h3>
      {submitted ? (
        <>
          {dics &&
            submitted.columns.some(
              (c) => c.kind === 'item' && dics.crfs.find((f) => f.crfId === c.crfId)?.repeatable,
            ) && <p className="retrieval-hint">{t.repeatHint(dics.recordSeparator)}</p>}
          {dics && submitted.columns.some((c) => c.kind === 'item' && fieldInfo(dics, columnValue(c))?.group) && (
            <p className="retrieval-hint">{t.rowHint(dics.rowSeparator)}</p>
          )}
          <PagedTable<SearchRow>
            rowKey="subjectRecordId"
            size="middle"
            tableLayout="fixed"
            columns={resultColumns}
            queryKey={queryKeys.search.results(studyId)}
            filters={submitted}
            fetchPage={async (paging) => {
              try {
                const res = await searchApi.search({
                  studyId,
                  conditions: submitted.conditions,
                  columns: submitted.columns,
                  ...paging,
                });
                onTotal(res.data.total);
                return res.data;
              } catch (err) {
                onTotal(null);
                if (!(err instanceof ApiError)) throw err;
                return { list: [], total: 0 };
              }
            }}
          />
        </>
      ) : (
        <p className="retrieval-hint">{t.notRun}</p>
      )}
    </section>
  );
}
