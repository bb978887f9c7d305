import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { queryKeys } from '../../../api/query-keys';
import { personnelApi, type Study, type StudyMember } from '../../../api/study.api';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { T } from '../../../locales/zh-CN';
import { StudyRoutePage } from '../components/study-header';
import { MemberDialog, type MemberDialogState } from './components/member-dialog';
import '../study.css';

interface Filters {
  name?: string;
}

function StudyMembers({ study }: { study: Study }) {
  const [dialog, setDialog] = useState<MemberDialogState | null>(null);
  const remove = useListMutation({
    mutationFn: (id: number) => personnelApi.remove(id),
    // The study's member count changes with its staff.
    invalidate: [queryKeys.studyPersonnel.all(), queryKeys.study.all()],
  });

  const columns: PageColumn<StudyMember>[] = [
    { title: T.studyUser.name, dataIndex: 'name', width: 120, search: { width: 200 } },
    { title: T.studyUser.userName, dataIndex: 'userName', width: 120 },
    { title: T.studyUser.site, dataIndex: 'deptName', minWidth: 160 },
    { title: T.studyUser.role, dataIndex: 'roleName', width: 140 },
    { title: T.studyUser.joinTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<StudyMember>([
      {
        key: 'changeRole',
        label: T.studyUser.changeRole,
        code: 'study:user',
        onClick: (member) => setDialog({ mode: 'edit', member }),
      },
      {
        key: 'remove',
        label: T.studyUser.remove,
        code: 'study:user',
        danger: true,
        confirm: (member) => ({ title: T.studyUser.confirmRemove(member.name), description: T.studyUser.removeHint }),
        onClick: (member) => remove.mutateAsync(member.id),
      },
    ]),
  ];

  return (
    <>
      <TablePage<StudyMember, Filters>
        name="study-user-filter"
        rowKey="id"
        columns={columns}
        queryKey={queryKeys.studyPersonnel.list(study.id)}
        fetchPage={(query) => personnelApi.list({ ...query, studyId: study.id }).then((res) => res.data)}
        toolbar={
          <AuthButton
            code="study:user"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {T.studyUser.add}
          </AuthButton>
        }
      />
      <MemberDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
    </>
  );
}

/** 项目人员 (STUDY-04, STUDY-16): who works on the study, with which study role and at which site. */
export default function StudyUserPage() {
  return <StudyRoutePage page={T.studyUser.title}>{(study) => <StudyMembers study={study} />}</StudyRoutePage>;
}
