import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { Button, Empty, Input, Spin } from 'antd';
import { formatDate } from '../../../utils/format-date';
import { knowledgeApi } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import './mobile.css';

const PAGE_SIZE = 10;

/**
 * /m/knowledge: patients read the published articles on their phone, without signing in (docs/content.md):
 * a study's own (?studyId=) and the platform's, newest first, searchable, ten at a time.
 */
export default function MobileKnowledgeList() {
  const [params] = useSearchParams();
  const studyId = Number(params.get('studyId')) || undefined;
  const [keyword, setKeyword] = useState('');
  const [search, setSearch] = useState('');
  const pages = useInfiniteQuery({
    queryKey: queryKeys.mobileKnowledge.list(studyId, search),
    initialPageParam: 1,
    queryFn: ({ pageParam }) =>
      knowledgeApi
        .publicList({ studyId, keyword: search || undefined, pageNum: pageParam, pageSize: PAGE_SIZE })
        .then((r) => r.data),
    getNextPageParam: (last, all) => (all.length * PAGE_SIZE < last.total ? all.length + 1 : undefined),
  });
  const articles = pages.data?.pages.flatMap((p) => p.list) ?? [];
  const query = studyId ? `?studyId=${studyId}` : '';
  return (
    <main className="m-page">
      <h1>{CONTENT_TEXT.mobileTitle}</h1>
      <Input.Search
        size="large"
        aria-label={CONTENT_TEXT.keyword}
        placeholder={CONTENT_TEXT.keyword}
        enterButton={CONTENT_TEXT.search}
        value={keyword}
        onChange={(e) => setKeyword(e.target.value)}
        onSearch={(v) => setSearch(v.trim())}
      />
      {pages.isLoading && <Spin className="m-spin" />}
      {pages.isSuccess && articles.length === 0 && <Empty description={CONTENT_TEXT.mobileEmpty} />}
      <ul className="m-list">
        {articles.map((a) => (
          <li key={a.id}>
            <Link className="m-card" to={`/m/knowledge/${a.id}${query}`}>
              {a.coverUrl && <img className="m-cover" src={a.coverUrl} alt="" />}
              <span className="m-card-text">
                <strong className="m-card-title">{a.title}</strong>
                {a.summary && <span className="m-card-summary">{a.summary}</span>}
                <span className="m-card-meta">
                  {a.typeName} · {a.publishTime ? formatDate(a.publishTime).slice(0, 10) : ''}
                </span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {pages.hasNextPage && (
        <Button block size="large" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
          {CONTENT_TEXT.mobileMore}
        </Button>
      )}
    </main>
  );
}
