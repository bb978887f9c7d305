import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { Alert, Spin } from 'antd';
import { LeftOutlined } from '@ant-design/icons';
import { formatDate } from '../../../utils/format-date';
import { knowledgeApi } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import '../../project/knowledge/content.css';
import './mobile.css';

/** /m/knowledge/{id}: one published article on the phone (no sign-in). */
export default function MobileKnowledgeDetail() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const article = useQuery({
    queryKey: queryKeys.mobileKnowledge.detail(id),
    queryFn: () => knowledgeApi.publicGet(Number(id)).then((r) => r.data),
    retry: false,
  });
  const back = `/m/knowledge${params.get('studyId') ? `?studyId=${params.get('studyId')}` : ''}`;
  return (
    <main className="m-page">
      <Link className="m-back" to={back}>
        <LeftOutlined /> {CONTENT_TEXT.mobileBack}
      </Link>
      {article.isLoading && <Spin className="m-spin" />}
      {article.isError && <Alert type="warning" showIcon title={CONTENT_TEXT.mobileMissing} />}
      {article.data && (
        <article className="m-article">
          <h1>{article.data.title}</h1>
          <div className="m-card-meta">
            {article.data.typeName} ·{' '}
            {article.data.publishTime ? formatDate(article.data.publishTime).slice(0, 10) : ''}
          </div>
          {article.data.coverUrl && <img className="m-article-cover" src={article.data.coverUrl} alt="" />}
          {/* The HTML was sanitised with an allow-list on the server when it was saved (knowledge/sanitize.ts). */}
          <div className="article-body" dangerouslySetInnerHTML={{ __html: article.data.content ?? '' }} />
        </article>
      )}
    </main>
  );
}
