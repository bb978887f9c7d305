import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Tag } from 'antd';
import { hasPermission } from '@ecrf/core';
import { knowledgeApi, type Article, type ArticleStatus } from '../../../api/content.api';
import { queryKeys } from '../../../api/query-keys';
import { actionsColumn, type PageColumn } from '../../../components/table-page';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import { PickedStudyTable, StudyAddButton } from '../components/picked-study-table';
import { useDialogRow } from '../components/use-dialog-row';
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
  const { message } = App.useApp();
  const client = useQueryClient();
  const mayEdit = can(MANAGE);
  const platformEditor = hasPermission(permissions, STUDY_MANAGE);

  const types = useQuery({
    queryKey: queryKeys.knowledge.types(),
    queryFn: () => knowledgeApi.types().then((r) => r.data),
  });
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.knowledge.lists() });
  const [editing, setEditing, closeEditing] = useDialogRow<Article | 'new'>(refresh);
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
      <PickedStudyTable<Article, Filters>
        studyId={studyId}
        name="knowledge-filter"
        rowKey="id"
        columns={columns}
        initialValues={{ typeId: '', status: '' }}
        queryKey={(id) => queryKeys.knowledge.list(id)}
        fetchPage={(query) => knowledgeApi.list(query).then((res) => res.data)}
        toolbar={
          <StudyAddButton
            label={CONTENT_TEXT.articleAdd}
            allowed={mayEdit}
            studyId={studyId}
            onClick={() => setEditing('new')}
          />
        }
      />
      {editing !== null && studyId !== null && (
        <ArticleDialog
          studyId={studyId}
          article={editing === 'new' ? null : editing}
          types={types.data ?? []}
          platformEditor={platformEditor}
          onClose={closeEditing}
        />
      )}
    </div>
  );
}
