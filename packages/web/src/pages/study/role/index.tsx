import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Popconfirm, Space, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { studyRoleApi, type Study, type StudyRole } from '../../../api/study.api';
import { PagedTable } from '../../../components/paged-table';
import { Auth, AuthButton } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { formatDate } from '../../../utils/format-date';
import { StudyRoutePage } from '../components/study-header';
import { StudyRoleDialog, type StudyRoleDialogState } from './components/study-role-dialog';
import '../study.css';

function StudyRoles({ study }: { study: Study }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<StudyRoleDialogState | null>(null);

  const roles = useQuery({
    queryKey: ['study-role', 'list', study.id],
    queryFn: () => studyRoleApi.list(study.id).then((res) => res.data),
  });

  const remove = useMutation({
    mutationFn: (id: number) => studyRoleApi.remove(id),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: ['study-role'] });
    },
  });

  const columns: TableColumnsType<StudyRole> = [
    { title: T.studyRole.name, dataIndex: 'roleName', width: 200 },
    {
      title: T.studyRole.permissions,
      dataIndex: 'permissions',
      width: 100,
      align: 'center',
      render: (permissions: string[]) => T.studyRole.permissionCount(permissions.length),
    },
    { title: T.studyRole.memberCount, dataIndex: 'memberCount', width: 90, align: 'center' },
    { title: T.common.remark, dataIndex: 'remark', ellipsis: true },
    { title: T.common.createTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 140,
      render: (_: unknown, role) => (
        <Space size={0}>
          <AuthButton code="study:role" type="link" size="small" onClick={() => setDialog({ mode: 'edit', role })}>
            {T.common.edit}
          </AuthButton>
          <Auth
            code="study:role"
            fallback={
              <AuthButton code="study:role" type="link" size="small" danger>
                {T.common.remove}
              </AuthButton>
            }
          >
            <Popconfirm
              title={T.studyRole.confirmRemove(role.roleName)}
              description={T.studyRole.removeHint}
              onConfirm={() => remove.mutateAsync(role.id).catch(() => undefined)}
            >
              <Button type="link" size="small" danger>
                {T.common.remove}
              </Button>
            </Popconfirm>
          </Auth>
        </Space>
      ),
    },
  ];

  return (
    <>
      <div className="page-toolbar">
        <AuthButton
          code="study:role"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
      </div>
      <PagedTable<StudyRole> rowKey="id" columns={columns} rows={roles.data ?? []} loading={roles.isFetching} />
      <StudyRoleDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
    </>
  );
}

/** 项目角色 (STUDY-04, STUDY-14, STUDY-15): the study's roles and what each may do. */
export default function StudyRolePage() {
  return <StudyRoutePage page={T.studyRole.title}>{(study) => <StudyRoles study={study} />}</StudyRoutePage>;
}
