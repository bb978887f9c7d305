import { useState } from 'react';
import { queryKeys } from '../../../api/query-keys';
import { roleApi, type Role } from '../../../api/system.api';
import { AuthAddButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { ROLE_TEXT } from '../../../locales/role.zh-CN';
import { useStatusColumn } from '../status-column';
import { RoleDialog, type RoleDialogState } from './components/role-dialog';

interface Filters {
  roleName?: string;
  status?: number;
}

/** 角色管理 (SYS-05..07). */
export default function RolePage() {
  const [dialog, setDialog] = useState<RoleDialogState | null>(null);

  const invalidate = [queryKeys.role.all()];
  const statusColumn = useStatusColumn<Role>({
    code: 'sys:role:edit',
    idOf: (role) => role.roleId,
    nameOf: (role) => role.roleName,
    changeStatus: roleApi.changeStatus,
    invalidate,
  });
  const remove = useListMutation({ mutationFn: (roleId: number) => roleApi.remove(roleId), invalidate });

  const columns: PageColumn<Role>[] = [
    { title: ROLE_TEXT.name, dataIndex: 'roleName', minWidth: 160, search: { width: 200 } },
    { title: ROLE_TEXT.key, dataIndex: 'roleKey', minWidth: 140 },
    { title: ROLE_TEXT.sort, dataIndex: 'roleSort', kind: 'number' },
    statusColumn,
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
