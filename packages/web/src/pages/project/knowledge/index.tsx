import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Tag } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { hasPermission } from '@ecrf/core';
import { knowledgeApi, type Article, type ArticleStatus } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import type { Paging } from '../../../components/paged-table';
import { actionsColumn, TablePage, type PageColumn } from '../../../components/table-page';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { StudyPicker, usePickedStudy } from '../picked-study';
import { STUDY_MANAGE } from '../study-access';
import { ArticleDialog } from './article-dialog';
import './content.css';

const MANAGE = 'project.knowledge.manage';

const STATUS_OPTIONS = [
  { value: '', label: CONTENT_TEXT.allStatus },
  { value: 'draft', label: CONTENT_TEXT.draft },
  { value: 'published', label: CONTENT_TEXT.published },
];

interface Filters {
  typeId?: number;
  status?: ArticleStatus;
  keyword?: string;
}

/**
 * 知识库 (/project/knowledge): the study's articles and the platform's, drafts included. Editors with 管理知识库
 * write articles in the rich-text editor and publish them to the patients' reading page (/m/knowledge).
 */
export default function KnowledgePage() {
  const study = usePickedStudy();
  const { studyId, can, permissions } = study;
  const [editing, setEditing] = useState<Article | 'new' | null>(null);
  const { message } = App.useApp();
  const client = useQueryClient();
  const mayEdit = can(MANAGE);
  const platformEditor = hasPermission(permissions, STUDY_MANAGE);

  const types = useQuery({
    queryKey: queryKeys.knowledge.types(),
    queryFn: () => knowledgeApi.types().then((r) => r.data),
  });
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.knowledge.lists() });
  const remove = useMutation({
    mutationFn: (row: Article) => knowledgeApi.remove(studyId!, row.id),
    onSuccess: () => {
      void message.success(CONTENT_TEXT.removed);
      void refresh();
    },
  });
  const open = async (row: Article) => {
    const full = await knowledgeApi.get(studyId!, row.id);
    setEditing(full.data);
  };
  const rowEditable = (row: Article) => (row.platform ? platformEditor : mayEdit);

  const columns: PageColumn<Article>[] = [
    {
      title: CONTENT_TEXT.cover,
      dataIndex: 'coverUrl',
      width: 120,
      ellipsis: false,
      render: (url: string | null) =>
        url ? <img className="content-cover" src={url} alt={CONTENT_TEXT.cover} /> : null,
    },
    {
      title: CONTENT_TEXT.title,
      dataIndex: 'title',
      minWidth: 200,
      search: { name: 'keyword', label: CONTENT_TEXT.keyword },
      // The filters keep the order they had: 分类, 状态, then the words.
      searchOrder: 2,
    },
    {
      title: CONTENT_TEXT.type,
      dataIndex: 'typeName',
      width: 110,
      search: {
        name: 'typeId',
        options: [
          { value: '', label: CONTENT_TEXT.allTypes },
          ...(types.data ?? []).map((x) => ({ value: x.id, label: x.name })),
        ],
        width: 140,
      },
      searchOrder: 0,
    },
    {
      title: CONTENT_TEXT.scope,
      dataIndex: 'platform',
      width: 90,
      render: (p: boolean) => (p ? CONTENT_TEXT.platform : CONTENT_TEXT.thisStudy),
    },
    {
      title: CONTENT_TEXT.status,
      dataIndex: 'status',
      kind: 'status',
      search: { options: STATUS_OPTIONS, width: 120 },
      searchOrder: 1,
      render: (s: ArticleStatus) =>
        s === 'published' ? <Tag color="green">{CONTENT_TEXT.published}</Tag> : <Tag>{CONTENT_TEXT.draft}</Tag>,
    },
    { title: CONTENT_TEXT.updateTime, dataIndex: 'updateTime', kind: 'datetime' },
    actionsColumn<Article>([
      {
        key: 'edit',
        label: CONTENT_TEXT.edit,
        disabled: (row) => !rowEditable(row),
        onClick: (row) => open(row),
      },
      {
        key: 'preview',
        label: CONTENT_TEXT.preview,
        hidden: (row) => row.status !== 'published',
        href: (row) => `/m/knowledge/${row.id}`,
        onClick: () => undefined,
      },
      {
        key: 'remove',
        label: CONTENT_TEXT.remove,
        danger: true,
        disabled: (row) => !rowEditable(row),
        confirm: () => ({ title: CONTENT_TEXT.removeConfirm }),
        onClick: (row) => remove.mutateAsync(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{CONTENT_TEXT.knowledgeTitle}</h2>
      <StudyPicker study={study} label={CONTENT_TEXT.study} placeholder={CONTENT_TEXT.studyPlaceholder} width={260} />
      <TablePage<Article, Filters>
        // Another study starts from its first page, unfiltered.
        key={studyId}
        name="knowledge-filter"
        rowKey="id"
        columns={columns}
        initialValues={{ typeId: '', status: '' }}
        {...(studyId === null
          ? { rows: [] }
          : {
              queryKey: queryKeys.knowledge.list(studyId),
              fetchPage: (query: Paging & Filters) => knowledgeApi.list({ ...query, studyId }).then((res) => res.data),
            })}
        toolbar={
          <Button
            type="primary"
            icon={<PlusOutlined />}
            disabled={!mayEdit || studyId === null}
            onClick={() => setEditing('new')}
          >
            {CONTENT_TEXT.articleAdd}
          </Button>
        }
      />
      {editing !== null && studyId !== null && (
        <ArticleDialog
          studyId={studyId}
          article={editing === 'new' ? null : editing}
          types={types.data ?? []}
          platformEditor={platformEditor}
          onClose={(saved) => {
            setEditing(null);
            if (saved) void refresh();
          }}
        />
      )}
    </div>
  );
}
