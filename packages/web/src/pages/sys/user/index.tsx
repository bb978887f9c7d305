import { useState, type Key } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Tag } from 'antd';
import { isAccountExpired } from '@ecrf/core';
import { HomeOutlined } from '@ant-design/icons';
import type { SysUser } from '../../../api/auth.api';
import { queryKeys } from '../../../api/query-keys';
import { userApi, type UserQuery } from '../../../api/system.api';
import { ChangePasswordDialog, type PasswordTarget } from '../../../components/change-password-dialog';
import { AuthAddButton, AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { SECURITY_TEXT } from '../../../locales/security.zh-CN';
import { USER_TEXT } from '../../../locales/user.zh-CN';
import { useSession } from '../../../stores/session.store';
import { useStatusColumn } from '../status-column';
import { useDeptTree } from '../sys-shared';
import { SetHomeDialog } from './components/set-home-dialog';
import { UserDialog, type UserDialogState } from './components/user-dialog';

type Filters = Omit<UserQuery, 'pageNum' | 'pageSize'>;

/** 用户管理 (SYS-10..23). */
export default function UserPage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<UserDialogState | null>(null);
  const [resetTarget, setResetTarget] = useState<PasswordTarget | null>(null);
  const [selected, setSelected] = useState<Key[]>([]);
  const [homeOpen, setHomeOpen] = useState(false);
  const { treeData } = useDeptTree();
  // Nobody disables or deletes their own account (the server refuses it too): not offered on one's own row.
  const selfId = useSession((s) => s.user?.userId ?? null);

  const invalidate = [queryKeys.user.all()];
  const statusColumn = useStatusColumn<SysUser>({
    code: 'sys:user:edit',
    idOf: (user) => user.userId,
    nameOf: (user) => user.name || user.userName,
    fixed: (user) => user.userId === selfId,
    changeStatus: userApi.changeStatus,
    invalidate,
  });
  const remove = useListMutation({ mutationFn: (userId: number) => userApi.remove(userId), invalidate });

  const columns: PageColumn<SysUser>[] = [
    {
      title: USER_TEXT.userName,
      dataIndex: 'userName',
      width: 110,
      search: { label: USER_TEXT.mobileFilter, width: 160 },
      searchOrder: 1.5,
    },
    { title: USER_TEXT.name, dataIndex: 'name', width: 110, search: { width: 160 } },
    {
      title: USER_TEXT.dept,
      dataIndex: 'deptName',
      width: 110,
      search: { name: 'deptId', type: 'tree-select', treeData },
    },
    {
      title: USER_TEXT.rolesColumn,
      dataIndex: 'roleNames',
      minWidth: 110,
      render: (names: string[] | undefined) => (names ?? []).join('、'),
    },
    statusColumn,
    {
      title: SECURITY_TEXT.expiresOn,
      dataIndex: 'expiresOn',
      // The date fits the column; 已过期 goes under it, so the list keeps every column in view at 1366 px.
      width: 110,
      render: (expiresOn: string | null | undefined) =>
        expiresOn ? (
          <span className="user-expires-on">
            {expiresOn}
            {isAccountExpired(expiresOn, new Date()) && (
              <>
                <br />
                <Tag color="error">{SECURITY_TEXT.expired}</Tag>
              </>
            )}
          </span>
        ) : null,
    },
    // Left out first on a narrow screen: 账号有效期 matters more to an administrator than when an account was made.
    { title: COMMON_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime', hideOrder: 1 },
    actionsColumn<SysUser>([
      { key: 'view', label: COMMON_TEXT.view, onClick: (user) => setDialog({ mode: 'view', userId: user.userId }) },
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'sys:user:edit',
        onClick: (user) => setDialog({ mode: 'edit', userId: user.userId }),
      },
      {
        key: 'resetPwd',
        label: USER_TEXT.resetPassword,
        code: 'sys:user:resetPwd',
        onClick: (user) => setResetTarget({ userId: user.userId, userName: user.userName }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'sys:user:remove',
        danger: true,
        hidden: (user) => user.userId === selfId,
        confirm: (user) => ({ title: USER_TEXT.confirmRemove(user.name) }),
        onClick: (user) => remove.mutateAsync(user.userId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{USER_TEXT.title}</h2>
      <TablePage<SysUser, Filters>
        name="user-filter"
        rowKey="userId"
        columns={columns}
        queryKey={queryKeys.user.list()}
        fetchPage={(query) => userApi.list(query).then((res) => res.data)}
        table={{ rowSelection: { selectedRowKeys: selected, onChange: setSelected, preserveSelectedRowKeys: true } }}
        toolbar={
          <>
            <AuthAddButton code="sys:user:add" onClick={() => setDialog({ mode: 'add' })} />
            <AuthButton
              code="sys:user:edit"
              icon={<HomeOutlined aria-hidden />}
              onClick={() =>
                selected.length > 0 ? setHomeOpen(true) : void message.warning(USER_TEXT.selectUsersFirst)
              }
            >
              {USER_TEXT.setHome}
            </AuthButton>
          </>
        }
      />
      <SetHomeDialog
        open={homeOpen}
        userIds={selected.map(Number)}
        onClose={(saved) => {
          setHomeOpen(false);
          if (saved) {
            setSelected([]);
            void queryClient.invalidateQueries({ queryKey: queryKeys.user.all() });
          }
        }}
      />
      <UserDialog state={dialog} onClose={() => setDialog(null)} />
      <ChangePasswordDialog
        open={resetTarget !== null}
        mode="reset"
        target={resetTarget}
        onClose={() => setResetTarget(null)}
      />
    </div>
  );
}
