import { useState } from 'react';
import { STATUS } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { roleApi, type Role } from '../../../api/system.api';
import { AuthAddButton } from '../../../components/permission';
import {
  actionsColumn,
  StatusSwitch,
  TablePage,
  useListMutation,
  type PageColumn,
} from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { ROLE_TEXT } from '../../../locales/role.zh-CN';
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
    { title: ROLE_TEXT.name, dataIndex: 'roleName', minWidth: 160, search: { width: 200 } },
    { title: ROLE_TEXT.key, dataIndex: 'roleKey', minWidth: 140 },
    { title: ROLE_TEXT.sort, dataIndex: 'roleSort', kind: 'number' },
    {
      title: COMMON_TEXT.status,
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
    { title: COMMON_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<Role>([
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'sys:role:edit',
        onClick: (role) => setDialog({ mode: 'edit', roleId: role.roleId }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'sys:role:remove',
        danger: true,
        confirm: (role) => ({ title: ROLE_TEXT.confirmRemove(role.roleName) }),
        onClick: (role) => remove.mutateAsync(role.roleId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{ROLE_TEXT.title}</h2>
      <TablePage<Role, Filters>
        name="role-filter"
        rowKey="roleId"
        columns={columns}
        queryKey={queryKeys.role.list()}
        fetchPage={(query) => roleApi.list(query).then((res) => res.data)}
        toolbar={<AuthAddButton code="sys:role:add" onClick={() => setDialog({ mode: 'add' })} />}
      />
      <RoleDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
