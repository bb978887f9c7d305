import { useState } from 'react';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { studyApi, type Study } from '../../../api/study.api';
import { AuthAddButton } from '../../../components/permission';
import {
  actionsColumn,
  TablePage,
  useListMutation,
  type PageColumn,
  type RowAction,
} from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';
import { STUDY_MANAGE_TEXT } from '../../../locales/study-manage.zh-CN';
import { STUDY_STATUS_OPTIONS, StudyStatusTag } from '../components/study-status-tag';
import { StudyModeTag } from '../../../components/test-data-tag';
import { StudyDialog, type StudyDialogState } from './components/study-dialog';
import '../study.css';

interface Filters {
  studyName?: string;
  status?: number;
}

/** Where each study's setup pages live (platform §2, STUDY-02..04). */
const SETUP_PAGES: ReadonlyArray<{ key: string; label: string; to: (studyId: number) => string }> = [
  { key: 'config', label: STUDY_MANAGE_TEXT.config, to: (id) => `/study/config?studyId=${id}` },
  { key: 'crf', label: STUDY_MANAGE_TEXT.crf, to: (id) => `/study/crf?studyId=${id}` },
  { key: 'crfStage', label: STUDY_MANAGE_TEXT.crfStage, to: (id) => `/study/crfStage?studyId=${id}` },
  { key: 'role', label: STUDY_MANAGE_TEXT.role, to: (id) => `/study/${id}/role` },
  { key: 'user', label: STUDY_MANAGE_TEXT.user, to: (id) => `/study/${id}/user` },
];

/**
 * 项目维护 (STUDY-01, STUDY-02, STUDY-07): every study, with create, edit, delete and its setup pages. A row
 * shows 修改 and 项目配置; the other setup pages and 删除 are under 更多.
 */
export default function StudyManagePage() {
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<StudyDialogState | null>(null);
  const remove = useListMutation({
    mutationFn: (id: number) => studyApi.remove(id),
    invalidate: [queryKeys.study.all()],
  });

  const setup: RowAction<Study>[] = SETUP_PAGES.map((page) => ({
    key: page.key,
    label: page.label,
    onClick: (study) => void navigate(page.to(study.id)),
  }));
  const columns: PageColumn<Study>[] = [
    {
      title: STUDY_TEXT.name,
      dataIndex: 'studyName',
      minWidth: 160,
      search: { width: 200 },
      render: (name: string, study: Study) => (
        <>
          {name} <StudyModeTag mode={study.mode} />
        </>
      ),
      text: (study) => study.studyName,
    },
    { title: STUDY_TEXT.code, dataIndex: 'studyCode', width: 120 },
    { title: STUDY_TEXT.principal, dataIndex: 'principal', width: 90 },
    {
      title: STUDY_TEXT.status,
      dataIndex: 'status',
      kind: 'status',
      width: 80,
      search: { options: STUDY_STATUS_OPTIONS, width: 120 },
      render: (status: number) => <StudyStatusTag status={status} />,
    },
    { title: STUDY_TEXT.memberCount, dataIndex: 'memberCount', kind: 'number' },
    { title: STUDY_TEXT.subjectCount, dataIndex: 'subjectCount', kind: 'number', width: 70 },
    { title: STUDY_TEXT.creater, dataIndex: 'creater', width: 90, hideOrder: 1 },
    { title: COMMON_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime', hideOrder: 2 },
    actionsColumn<Study>([
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'study:edit',
        onClick: (study) => setDialog({ mode: 'edit', study }),
      },
      ...setup,
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'study:remove',
        danger: true,
        confirm: (study) => ({
          title: STUDY_MANAGE_TEXT.confirmRemove(study.studyName),
          description: STUDY_MANAGE_TEXT.removeHint,
        }),
        onClick: (study) => remove.mutateAsync(study.id),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{STUDY_MANAGE_TEXT.title}</h2>
      <TablePage<Study, Filters>
        name="study-filter"
        rowKey="id"
        columns={columns}
        queryKey={queryKeys.study.manage()}
        fetchPage={(query) => studyApi.manageList(query).then((res) => res.data)}
        toolbar={<AuthAddButton code="study:add" onClick={() => setDialog({ mode: 'add' })} />}
      />
      <StudyDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
