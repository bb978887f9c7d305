import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Select, Space, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG, STATUS } from '@ecrf/core';
import { roleApi, type Role } from '../../../api/system.api';
import { PagedTable } from '../../../components/paged-table';
import { AuthButton, AuthRemoveButton, AuthSwitch } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { STATUS_OPTIONS } from '../sys-shared';
import { RoleDialog, type RoleDialogState } from './components/role-dialog';
import { FilterButtons } from '../../../components/filter-buttons';

interface Filters {
  roleName?: string;
  status?: number;
}

/** 角色管理 (SYS-05..07). */
export default function RolePage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<RoleDialogState | null>(null);

  const done = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    void queryClient.invalidateQueries({ queryKey: ['role'] });
  };

  const changeStatus = useMutation({
    mutationFn: ({ roleId, status }: { roleId: number; status: number }) => roleApi.changeStatus(roleId, status),
    onSuccess: done,
  });

  const remove = useMutation({
    mutationFn: (roleId: number) => roleApi.remove(roleId),
    onSuccess: done,
  });

  const columns: TableColumnsType<Role> = [
    { title: T.role.name, dataIndex: 'roleName' },
    { title: T.role.key, dataIndex: 'roleKey' },
    { title: T.role.sort, dataIndex: 'roleSort', width: 100, align: 'center' },
    {
      title: T.common.status,
      dataIndex: 'status',
      width: 90,
      render: (status: number, role) => (
        <AuthSwitch
          code="sys:role:edit"
          aria-label={`${role.roleName} ${T.common.status}`}
          checked={status === STATUS.normal}
          loading={changeStatus.isPending && changeStatus.variables?.roleId === role.roleId}
          onChange={(checked) =>
            changeStatus.mutate({ roleId: role.roleId, status: checked ? STATUS.normal : STATUS.disabled })
          }
        />
      ),
    },
    { title: T.common.createTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 180,
      render: (_: unknown, role) => (
        <Space size={0}>
          <AuthButton
            code="sys:role:edit"
            type="link"
            size="small"
            onClick={() => setDialog({ mode: 'edit', roleId: role.roleId })}
          >
            {T.common.edit}
          </AuthButton>
          <AuthRemoveButton
            code="sys:role:remove"
            title={T.role.confirmRemove(role.roleName)}
            onConfirm={() => remove.mutateAsync(role.roleId)}
          />
        </Space>
      ),
    },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.role.title}</h2>
      <Form
        form={filterForm}
        name="role-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(values)}
      >
        <Form.Item label={T.role.name} name="roleName">
          <Input allowClear placeholder={T.role.name} style={{ width: 200 }} />
        </Form.Item>
        <Form.Item label={T.common.status} name="status">
          <Select allowClear options={STATUS_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 120 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="sys:role:add"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
      </div>
      <PagedTable<Role>
        rowKey="roleId"
        columns={columns}
        queryKey={['role', 'list']}
        filters={filters}
        fetchPage={(paging) => roleApi.list({ ...paging, ...compact(filters) }).then((res) => res.data)}
      />
      <RoleDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
