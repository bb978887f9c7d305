import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { STATUS } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { roleApi, type Role } from '../../../api/system.api';
import { AuthButton } from '../../../components/permission';
import {
  actionsColumn,
  StatusSwitch,
  TablePage,
  useListMutation,
  type PageColumn,
} from '../../../components/table-page';
import { T } from '../../../locales/zh-CN';
import { STATUS_OPTIONS } from '../sys-shared';
import { RoleDialog, type RoleDialogState } from './components/role-dialog';

interface Filters {
  roleName?: string;
  status?: number;
}

/** 角色管理 (SYS-05..07). */
export default function RolePage() {
  const [dialog, setDialog] = useState<RoleDialogState | null>(null);

  const invalidate = [queryKeys.role.all()];
  const changeStatus = useListMutation({
    mutationFn: ({ roleId, status }: { roleId: number; status: number }) => roleApi.changeStatus(roleId, status),
    invalidate,
  });
  const remove = useListMutation({ mutationFn: (roleId: number) => roleApi.remove(roleId), invalidate });

  const columns: PageColumn<Role>[] = [
    { title: T.role.name, dataIndex: 'roleName', minWidth: 160, search: { width: 200 } },
    { title: T.role.key, dataIndex: 'roleKey', minWidth: 140 },
    { title: T.role.sort, dataIndex: 'roleSort', kind: 'number' },
    {
      title: T.common.status,
      dataIndex: 'status',
      kind: 'status',
      width: 80,
      search: { options: STATUS_OPTIONS, width: 120 },
      render: (status: number, role) => (
        <StatusSwitch
          code="sys:role:edit"
          name={role.roleName}
          checked={status === STATUS.normal}
          loading={changeStatus.isPending && changeStatus.variables?.roleId === role.roleId}
          onChange={(checked) =>
            changeStatus.mutate({ roleId: role.roleId, status: checked ? STATUS.normal : STATUS.disabled })
          }
        />
      ),
    },
    { title: T.common.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<Role>([
      {
        key: 'edit',
        label: T.common.edit,
        code: 'sys:role:edit',
        onClick: (role) => setDialog({ mode: 'edit', roleId: role.roleId }),
      },
      {
        key: 'remove',
        label: T.common.remove,
        code: 'sys:role:remove',
        danger: true,
        confirm: (role) => ({ title: T.role.confirmRemove(role.roleName) }),
        onClick: (role) => remove.mutateAsync(role.roleId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.role.title}</h2>
      <TablePage<Role, Filters>
        name="role-filter"
        rowKey="roleId"
        columns={columns}
        queryKey={queryKeys.role.list()}
        fetchPage={(query) => roleApi.list(query).then((res) => res.data)}
        toolbar={
          <AuthButton
            code="sys:role:add"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {T.common.add}
          </AuthButton>
        }
      />
      <RoleDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
