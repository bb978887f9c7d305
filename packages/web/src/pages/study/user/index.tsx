import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { queryKeys } from '../../../api/query-keys';
import { personnelApi, type Study, type StudyMember } from '../../../api/study.api';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { STUDY_USER_TEXT } from '../../../locales/study-user.zh-CN';
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
    { title: STUDY_USER_TEXT.name, dataIndex: 'name', width: 120, search: { width: 200 } },
    { title: STUDY_USER_TEXT.userName, dataIndex: 'userName', width: 120 },
    {
      title: STUDY_USER_TEXT.site,
      dataIndex: 'siteNames',
      minWidth: 160,
      render: (_value, member) => (member.siteNames?.length ? member.siteNames.join('、') : (member.deptName ?? '')),
    },
    { title: STUDY_USER_TEXT.role, dataIndex: 'roleName', width: 140 },
    { title: STUDY_USER_TEXT.joinTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<StudyMember>([
      {
        key: 'changeRole',
        label: STUDY_USER_TEXT.changeRole,
        code: 'study:user',
        onClick: (member) => setDialog({ mode: 'edit', member }),
      },
      {
        key: 'remove',
        label: STUDY_USER_TEXT.remove,
        code: 'study:user',
        danger: true,
        confirm: (member) => ({
          title: STUDY_USER_TEXT.confirmRemove(member.name),
          description: STUDY_USER_TEXT.removeHint,
        }),
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
            {STUDY_USER_TEXT.add}
          </AuthButton>
        }
      />
      <MemberDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
    </>
  );
}

/** 项目人员 (STUDY-04, STUDY-16): who works on the study, with which study role and at which site. */
export default function StudyUserPage() {
  return <StudyRoutePage page={STUDY_USER_TEXT.title}>{(study) => <StudyMembers study={study} />}</StudyRoutePage>;
}
