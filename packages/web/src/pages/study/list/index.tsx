import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { studyApi, type Study } from '../../../api/study.api';
import { AuthButton } from '../../../components/permission';
import {
  actionsColumn,
  TablePage,
  useListMutation,
  type PageColumn,
  type RowAction,
} from '../../../components/table-page';
import { T } from '../../../locales/zh-CN';
import { STUDY_STATUS_OPTIONS, StudyStatusTag } from '../components/study-status-tag';
import { StudyDialog, type StudyDialogState } from './components/study-dialog';
import '../study.css';

interface Filters {
  studyName?: string;
  status?: number;
}

/** Where each study's setup pages live (platform §2, STUDY-02..04). */
const SETUP_PAGES: ReadonlyArray<{ key: string; label: string; to: (studyId: number) => string }> = [
  { key: 'config', label: T.studyManage.config, to: (id) => `/study/config?studyId=${id}` },
  { key: 'crf', label: T.studyManage.crf, to: (id) => `/study/crf?studyId=${id}` },
  { key: 'crfStage', label: T.studyManage.crfStage, to: (id) => `/study/crfStage?studyId=${id}` },
  { key: 'role', label: T.studyManage.role, to: (id) => `/study/${id}/role` },
  { key: 'user', label: T.studyManage.user, to: (id) => `/study/${id}/user` },
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
    { title: T.study.name, dataIndex: 'studyName', minWidth: 160, search: { width: 200 } },
    { title: T.study.code, dataIndex: 'studyCode', width: 120 },
    { title: T.study.principal, dataIndex: 'principal', width: 90 },
    {
      title: T.study.status,
      dataIndex: 'status',
      kind: 'status',
      width: 80,
      search: { options: STUDY_STATUS_OPTIONS, width: 120 },
      render: (status: number) => <StudyStatusTag status={status} />,
    },
    { title: T.study.memberCount, dataIndex: 'memberCount', kind: 'number' },
    { title: T.study.subjectCount, dataIndex: 'subjectCount', kind: 'number', width: 70 },
    { title: T.study.creater, dataIndex: 'creater', width: 90, hideOrder: 1 },
    { title: T.common.createTime, dataIndex: 'createTime', kind: 'datetime', hideOrder: 2 },
    actionsColumn<Study>([
      { key: 'edit', label: T.common.edit, code: 'study:edit', onClick: (study) => setDialog({ mode: 'edit', study }) },
      ...setup,
      {
        key: 'remove',
        label: T.common.remove,
        code: 'study:remove',
        danger: true,
        confirm: (study) => ({
          title: T.studyManage.confirmRemove(study.studyName),
          description: T.studyManage.removeHint,
        }),
        onClick: (study) => remove.mutateAsync(study.id),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.studyManage.title}</h2>
      <TablePage<Study, Filters>
        name="study-filter"
        rowKey="id"
        columns={columns}
        queryKey={queryKeys.study.manage()}
        fetchPage={(query) => studyApi.manageList(query).then((res) => res.data)}
        toolbar={
          <AuthButton
            code="study:add"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {T.common.add}
          </AuthButton>
        }
      />
      <StudyDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
