import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Select, Space, Table, Tag, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { buildTree, MSG, type MenuType } from '@ecrf/core';
import { menuApi, type MenuRow } from '../../../api/system.api';
import { AuthButton, AuthRemoveButton } from '../../../components/permission';
import { menuIcon } from '../../../layouts/menu-icon';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { MenuDialog, type MenuDialogState } from './components/menu-dialog';
import { menuHidden, menuIconName, menuTitle } from './menu-row';
import { FilterButtons } from '../../../components/filter-buttons';

interface Filters {
  menuName?: string;
  status?: number;
}

const TYPE_LABEL: Record<MenuType, { text: string; color: string }> = {
  M: { text: T.menu.typeM, color: 'blue' },
  C: { text: T.menu.typeC, color: 'green' },
  F: { text: T.menu.typeF, color: 'orange' },
};

/** 菜单管理 (SYS-08, SYS-09). */
export default function MenuPage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<MenuDialogState | null>(null);

  const list = useQuery({
    queryKey: ['menu', 'list', filters],
    queryFn: () => menuApi.list(compact(filters)).then((res) => res.data),
  });

  const tree = useMemo(
    () =>
      withoutEmptyChildren(
        buildTree(list.data ?? [], (row) => row.menuId),
        // Main-layout entries first, then the project layout's, each in menu order.
        (a, b) => a.level - b.level || (a.orderNum ?? 0) - (b.orderNum ?? 0),
      ),
    [list.data],
  );

  const remove = useMutation({
    mutationFn: (menuId: number) => menuApi.remove(menuId),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: ['menu'] });
      void queryClient.invalidateQueries({ queryKey: ['routers'] });
    },
  });

  const columns: TableColumnsType<MenuRow> = [
    { title: T.menu.name, key: 'title', width: 220, render: (_: unknown, row) => menuTitle(row) },
    {
      title: T.menu.icon,
      key: 'icon',
      width: 70,
      align: 'center',
      render: (_: unknown, row) => (row.type === 'F' ? null : menuIcon(menuIconName(row))),
    },
    {
      title: T.menu.type,
      dataIndex: 'type',
      width: 80,
      render: (type: MenuType) => <Tag color={TYPE_LABEL[type]?.color}>{TYPE_LABEL[type]?.text ?? type}</Tag>,
    },
    { title: T.menu.code, dataIndex: 'code', width: 200 },
    { title: T.menu.perms, dataIndex: 'perms', width: 180 },
    { title: T.menu.path, dataIndex: 'path', width: 220 },
    {
      title: T.menu.level,
      dataIndex: 'level',
      width: 100,
      render: (level: number) => (level === 1 ? T.menu.level1 : T.menu.level0),
    },
    { title: T.menu.orderNum, dataIndex: 'orderNum', width: 70, align: 'center' },
    {
      title: T.menu.hidden,
      key: 'hidden',
      width: 70,
      render: (_: unknown, row) => (menuHidden(row) ? T.common.yes : T.common.no),
    },
    {
      title: T.common.status,
      dataIndex: 'status',
      width: 80,
      render: (status: number) => <StatusTag status={status} />,
    },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 230,
      render: (_: unknown, row) => (
        <Space size={0}>
          {row.type !== 'F' && (
            <AuthButton
              code="sys:menu:add"
              type="link"
              size="small"
              onClick={() => setDialog({ mode: 'add', parent: row })}
            >
              {T.menu.addChild}
            </AuthButton>
          )}
          <AuthButton
            code="sys:menu:edit"
            type="link"
            size="small"
            onClick={() => setDialog({ mode: 'edit', menu: row })}
          >
            {T.common.edit}
          </AuthButton>
          <AuthRemoveButton
            code="sys:menu:remove"
            title={T.common.confirmRemove}
            onConfirm={() => remove.mutateAsync(row.menuId)}
          />
        </Space>
      ),
    },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.menu.title}</h2>
      <Form
        form={filterForm}
        name="menu-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(values)}
      >
        <Form.Item label={T.menu.name} name="menuName">
          <Input allowClear placeholder={T.menu.name} style={{ width: 200 }} />
        </Form.Item>
        <Form.Item label={T.common.status} name="status">
          <Select allowClear options={STATUS_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 120 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="sys:menu:add"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
      </div>
      <Table<MenuRow>
        rowKey="menuId"
        columns={columns}
        dataSource={tree}
        loading={list.isFetching}
        pagination={false}
        size="middle"
        scroll={{ x: 'max-content' }}
      />
      <MenuDialog state={dialog} tree={tree} onClose={() => setDialog(null)} />
    </div>
  );
}
