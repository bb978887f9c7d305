import { useState, type ReactNode } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Select, Space, message } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import type { Page } from '@ecrf/core';
import { CT } from './knowledge/texts';
import type { useContentStudy } from './knowledge/use-content-study';

export const CONTENT_PAGE_SIZE = 10;

type ContentStudy = ReturnType<typeof useContentStudy>;

/** What a content list asks its API for; the page adds its own filters. */
export interface ContentListParams {
  studyId: number;
  pageNum: number;
  pageSize: number;
  keyword: string | undefined;
}

/**
 * The paged, keyword-searched list of a content page (/project/expert, /project/medical, /project/knowledge):
 * the query under [key, 'list', studyId, ...filters, search, pageNum], its refresh, the deletion with its
 * message, and the props of the antd Table showing it.
 */
export function useContentList<T extends { id: number }>(opts: {
  study: ContentStudy;
  key: string;
  /** extra values of the query key, between the study and the keyword; a change must also reset the page */
  filters?: unknown[];
  /** false while the list may not be read (the query waits) */
  enabled?: boolean;
  fetch: (params: ContentListParams) => Promise<{ data: Page<T> }>;
  remove?: (studyId: number, row: T) => Promise<unknown>;
}) {
  const { study, key } = opts;
  const { studyId } = study;
  const [keyword, setKeyword] = useState('');
  const [search, setSearch] = useState('');
  const [pageNum, setPageNum] = useState(1);
  const client = useQueryClient();
  const list = useQuery({
    queryKey: [key, 'list', studyId, ...(opts.filters ?? []), search, pageNum],
    enabled: studyId !== null && (opts.enabled ?? true),
    placeholderData: keepPreviousData,
    queryFn: () =>
      opts
        .fetch({ studyId: studyId!, pageNum, pageSize: CONTENT_PAGE_SIZE, keyword: search || undefined })
        .then((r) => r.data),
  });
  const refresh = () => client.invalidateQueries({ queryKey: [key, 'list'] });
  const remove = useMutation({
    mutationFn: (row: T) => opts.remove!(studyId!, row),
    onSuccess: () => {
      void message.success(CT.removed);
      void refresh();
    },
  });
  return {
    study,
    keyword,
    setKeyword,
    /** back to the first page, e.g. after a filter changed */
    firstPage: () => setPageNum(1),
    /** runs the typed keyword from the first page */
    submit: () => {
      setSearch(keyword.trim());
      setPageNum(1);
    },
    refresh,
    remove,
    table: {
      rowKey: 'id' as const,
      loading: list.isFetching,
      dataSource: list.data?.list ?? [],
      pagination: {
        current: pageNum,
        pageSize: CONTENT_PAGE_SIZE,
        total: list.data?.total ?? 0,
        onChange: setPageNum,
        showSizeChanger: false,
      },
    },
  };
}

export type ContentList = ReturnType<typeof useContentList>;

/**
 * The toolbar of a content page: the study picker, the page's own filters, the keyword search with 查询 (when
 * the page has a searchable list) and the add button, enabled once a study is chosen and the user may edit.
 */
export function ContentToolbar(props: {
  study: ContentStudy;
  list?: Pick<ContentList, 'keyword' | 'setKeyword' | 'submit' | 'firstPage'>;
  keywordWidth?: number;
  children?: ReactNode;
  addText: string;
  mayAdd: boolean;
  onAdd: () => void;
}) {
  const { study, list } = props;
  return (
    <Space wrap style={{ marginBottom: 16 }}>
      <Select
        aria-label={CT.study}
        placeholder={CT.studyPlaceholder}
        style={{ width: 260 }}
        value={study.studyId ?? undefined}
        loading={study.loading}
        options={study.options}
        onChange={(v: number) => {
          study.setStudyId(v);
          list?.firstPage();
        }}
      />
      {props.children}
      {list && (
        <>
          <Input
            aria-label={CT.keyword}
            placeholder={CT.keyword}
            allowClear
            style={{ width: props.keywordWidth ?? 200 }}
            value={list.keyword}
            onChange={(e) => list.setKeyword(e.target.value)}
            onPressEnter={list.submit}
          />
          <Button onClick={list.submit}>{CT.search}</Button>
        </>
      )}
      <Button
        type="primary"
        icon={<PlusOutlined />}
        disabled={!props.mayAdd || study.studyId === null}
        onClick={props.onAdd}
      >
        {props.addText}
      </Button>
    </Space>
  );
}
