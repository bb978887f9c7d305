import { useState, type Key } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Form, Input, Select, Space, TreeSelect, type TableColumnsType } from 'antd';
import { HomeOutlined, PlusOutlined } from '@ant-design/icons';
import { MSG, STATUS } from '@ecrf/core';
import type { SysUser } from '../../../api/auth.api';
import { userApi, type UserQuery } from '../../../api/system.api';
import { ChangePasswordDialog, type PasswordTarget } from '../../../components/change-password-dialog';
import { PagedTable } from '../../../components/paged-table';
import { AuthButton, AuthRemoveButton, AuthSwitch } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { useSession } from '../../../stores/session.store';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { STATUS_OPTIONS, useDeptTree } from '../sys-shared';
import { SetHomeDialog } from './components/set-home-dialog';
import { UserDialog, type UserDialogState } from './components/user-dialog';
import { FilterButtons } from '../../../components/filter-buttons';

type Filters = Omit<UserQuery, 'pageNum' | 'pageSize'>;

/** 用户管理 (SYS-10..23). */
export default function UserPage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<UserDialogState | null>(null);
  const [resetTarget, setResetTarget] = useState<PasswordTarget | null>(null);
  const [selected, setSelected] = useState<Key[]>([]);
  const [homeOpen, setHomeOpen] = useState(false);
  const { treeData } = useDeptTree();
  // Nobody disables or deletes their own account (the server refuses it too): not offered on one's own row.
  const selfId = useSession((s) => s.user?.userId ?? null);

  const done = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    void queryClient.invalidateQueries({ queryKey: ['user'] });
  };

  const changeStatus = useMutation({
    mutationFn: ({ userId, status }: { userId: number; status: number }) => userApi.changeStatus(userId, status),
    onSuccess: done,
  });

  const remove = useMutation({
    mutationFn: (userId: number) => userApi.remove(userId),
    onSuccess: done,
  });

  const columns: TableColumnsType<SysUser> = [
    { title: T.user.userName, dataIndex: 'userName', width: 140 },
    { title: T.user.name, dataIndex: 'name', width: 120 },
    { title: T.user.dept, dataIndex: 'deptName', width: 160 },
    {
      title: T.user.rolesColumn,
      dataIndex: 'roleNames',
      width: 180,
      render: (names: string[] | undefined) => (names ?? []).join('、'),
    },
    {
      title: T.common.status,
      dataIndex: 'status',
      width: 90,
      render: (status: number, user) => (
        <AuthSwitch
          code="sys:user:edit"
          aria-label={`${user.userName} ${T.common.status}`}
          checked={status === STATUS.normal}
          disabled={user.userId === selfId}
          loading={changeStatus.isPending && changeStatus.variables?.userId === user.userId}
          onChange={(checked) =>
            changeStatus.mutate({ userId: user.userId, status: checked ? STATUS.normal : STATUS.disabled })
          }
        />
      ),
    },
    { title: T.common.createTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 280,
      render: (_: unknown, user) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setDialog({ mode: 'view', userId: user.userId })}>
            {T.common.view}
          </Button>
          <AuthButton
            code="sys:user:edit"
            type="link"
            size="small"
            onClick={() => setDialog({ mode: 'edit', userId: user.userId })}
          >
            {T.common.edit}
          </AuthButton>
          <AuthButton
            code="sys:user:resetPwd"
            type="link"
            size="small"
            onClick={() => setResetTarget({ userId: user.userId, userName: user.userName })}
          >
            {T.user.resetPassword}
          </AuthButton>
          {user.userId !== selfId && (
            <AuthRemoveButton
              code="sys:user:remove"
              title={T.user.confirmRemove(user.name)}
              onConfirm={() => remove.mutateAsync(user.userId)}
            />
          )}
        </Space>
      ),
    },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.user.title}</h2>
      <Form
        form={filterForm}
        name="user-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(values)}
      >
        <Form.Item label={T.user.name} name="name">
          <Input allowClear placeholder={T.user.name} style={{ width: 160 }} />
        </Form.Item>
        <Form.Item label={T.user.mobileFilter} name="userName">
          <Input allowClear placeholder={T.user.mobileFilter} style={{ width: 160 }} />
        </Form.Item>
        <Form.Item label={T.user.dept} name="deptId">
          <TreeSelect
            allowClear
            treeData={treeData}
            treeDefaultExpandAll
            placeholder={T.common.selectPlaceholder}
            style={{ width: 200 }}
          />
        </Form.Item>
        <Form.Item label={T.common.status} name="status">
          <Select allowClear options={STATUS_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 120 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="sys:user:add"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
        <AuthButton
          code="sys:user:edit"
          icon={<HomeOutlined aria-hidden />}
          onClick={() => (selected.length > 0 ? setHomeOpen(true) : void message.warning(T.user.selectUsersFirst))}
        >
          {T.user.setHome}
        </AuthButton>
      </div>
      <PagedTable<SysUser>
        rowKey="userId"
        columns={columns}
        queryKey={['user', 'list']}
        filters={filters}
        fetchPage={(paging) => userApi.list({ ...paging, ...compact(filters) }).then((res) => res.data)}
        rowSelection={{ selectedRowKeys: selected, onChange: setSelected, preserveSelectedRowKeys: true }}
      />
      <SetHomeDialog
        open={homeOpen}
        userIds={selected.map(Number)}
        onClose={(saved) => {
          setHomeOpen(false);
          if (saved) {
            setSelected([]);
            void queryClient.invalidateQueries({ queryKey: ['user'] });
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
