import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { PlusOutlined } from '@ant-design/icons';
import { queryKeys } from '../../../api/query-keys';
import { studyRoleApi, type Study, type StudyRole } from '../../../api/study.api';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { STUDY_ROLE_TEXT } from '../../../locales/study-role.zh-CN';
import { StudyRoutePage } from '../components/study-header';
import { StudyRoleDialog, type StudyRoleDialogState } from './components/study-role-dialog';
import '../study.css';

function StudyRoles({ study }: { study: Study }) {
  const [dialog, setDialog] = useState<StudyRoleDialogState | null>(null);

  const roles = useQuery({
    queryKey: queryKeys.studyRole.list(study.id),
    queryFn: () => studyRoleApi.list(study.id).then((res) => res.data),
  });
  const remove = useListMutation({
    mutationFn: (id: number) => studyRoleApi.remove(id),
    invalidate: [queryKeys.studyRole.all()],
  });

  const columns: PageColumn<StudyRole>[] = [
    { title: STUDY_ROLE_TEXT.name, dataIndex: 'roleName', width: 180 },
    {
      title: STUDY_ROLE_TEXT.permissions,
      dataIndex: 'permissions',
      kind: 'number',
      width: 90,
      render: (permissions: string[]) => STUDY_ROLE_TEXT.permissionCount(permissions.length),
    },
    { title: STUDY_ROLE_TEXT.memberCount, dataIndex: 'memberCount', kind: 'number' },
    { title: COMMON_TEXT.remark, dataIndex: 'remark', minWidth: 160 },
    { title: COMMON_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<StudyRole>([
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'study:role',
        onClick: (role) => setDialog({ mode: 'edit', role }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'study:role',
        danger: true,
        confirm: (role) => ({
          title: STUDY_ROLE_TEXT.confirmRemove(role.roleName),
          description: STUDY_ROLE_TEXT.removeHint,
        }),
        onClick: (role) => remove.mutateAsync(role.id),
      },
    ]),
  ];

  return (
    <>
      <TablePage<StudyRole>
        name="study-role-filter"
        rowKey="id"
        columns={columns}
        rows={roles.data ?? []}
        loading={roles.isFetching}
        toolbar={
          <AuthButton
            code="study:role"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {COMMON_TEXT.add}
          </AuthButton>
        }
      />
      <StudyRoleDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
    </>
  );
}

/** 项目角色 (STUDY-04, STUDY-14, STUDY-15): the study's roles and what each may do. */
export default function StudyRolePage() {
  return <StudyRoutePage page={STUDY_ROLE_TEXT.title}>{(study) => <StudyRoles study={study} />}</StudyRoutePage>;
}
