import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { buildTree, type MenuType } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { menuApi, type MenuRow } from '../../../api/system.api';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { menuIcon } from '../../../layouts/menu-icon';
import { T } from '../../../locales/zh-CN';
import { STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { MenuDialog, type MenuDialogState } from './components/menu-dialog';
import { menuHidden, menuIconName, menuTitle } from './menu-row';

interface Filters {
  menuName?: string;
  status?: number;
}

const TYPE_LABEL: Record<MenuType, { text: string; color: string }> = {
  M: { text: T.menu.typeM, color: 'blue' },
  C: { text: T.menu.typeC, color: 'green' },
  F: { text: T.menu.typeF, color: 'orange' },
};

/** The menu rows as their tree: main-layout entries first, then the project layout's, each in menu order. */
const toTree = (rows: MenuRow[]) =>
  withoutEmptyChildren(
    buildTree(rows, (row) => row.menuId),
    (a, b) => a.level - b.level || (a.orderNum ?? 0) - (b.orderNum ?? 0),
  );

/** 菜单管理 (SYS-08, SYS-09). */
export default function MenuPage() {
  const [dialog, setDialog] = useState<MenuDialogState | null>(null);
  // The dialog's 上级菜单 picker offers the whole tree, whatever the list is filtered by.
  const all = useQuery({
    queryKey: queryKeys.menu.list({}),
    queryFn: () => menuApi.list({}).then((res) => res.data),
  });
  const tree = useMemo(() => toTree(all.data ?? []), [all.data]);

  const remove = useListMutation({
    mutationFn: (menuId: number) => menuApi.remove(menuId),
    // A menu change changes the side menu too.
    invalidate: [queryKeys.menu.all(), queryKeys.account.routers()],
  });

  const columns: PageColumn<MenuRow>[] = [
    // The tree's indentation and expander sit in this column.
    {
      title: T.menu.name,
      key: 'title',
      minWidth: 200,
      text: menuTitle,
      render: (_: unknown, row) => menuTitle(row),
      search: { name: 'menuName', width: 200 },
    },
    {
      title: T.menu.icon,
      key: 'icon',
      kind: 'status',
      width: 60,
      align: 'center',
      render: (_: unknown, row) => (row.type === 'F' ? null : menuIcon(menuIconName(row))),
    },
    {
      title: T.menu.type,
      dataIndex: 'type',
      kind: 'status',
      width: 70,
      render: (type: MenuType) => <Tag color={TYPE_LABEL[type]?.color}>{TYPE_LABEL[type]?.text ?? type}</Tag>,
    },
    { title: T.menu.code, dataIndex: 'code', width: 170 },
    // Technical columns a narrower screen leaves to the edit dialog.
    { title: T.menu.perms, dataIndex: 'perms', width: 160, hideOrder: 2 },
    { title: T.menu.path, dataIndex: 'path', width: 160, hideOrder: 1 },
    {
      title: T.menu.level,
      dataIndex: 'level',
      kind: 'status',
      width: 90,
      render: (level: number) => (level === 1 ? T.menu.level1 : T.menu.level0),
    },
    { title: T.menu.orderNum, dataIndex: 'orderNum', kind: 'number', width: 60 },
    {
      title: T.menu.hidden,
      key: 'hidden',
      kind: 'status',
      width: 60,
      render: (_: unknown, row) => (menuHidden(row) ? T.common.yes : T.common.no),
    },
    {
      title: T.common.status,
      dataIndex: 'status',
      kind: 'status',
      width: 70,
      search: { options: STATUS_OPTIONS, width: 120 },
      render: (status: number) => <StatusTag status={status} />,
    },
    actionsColumn<MenuRow>([
      {
        key: 'addChild',
        label: T.menu.addChild,
        code: 'sys:menu:add',
        hidden: (row) => row.type === 'F',
        onClick: (row) => setDialog({ mode: 'add', parent: row }),
      },
      {
        key: 'edit',
        label: T.common.edit,
        code: 'sys:menu:edit',
        onClick: (row) => setDialog({ mode: 'edit', menu: row }),
      },
      {
        key: 'remove',
        label: T.common.remove,
        code: 'sys:menu:remove',
        danger: true,
        confirm: () => ({ title: T.common.confirmRemove }),
        onClick: (row) => remove.mutateAsync(row.menuId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.menu.title}</h2>
      <TablePage<MenuRow, Filters>
        name="menu-filter"
        rowKey="menuId"
        columns={columns}
        queryKey={queryKeys.menu.lists()}
        fetchAll={(filters) => menuApi.list(filters).then((res) => res.data)}
        select={toTree}
        paged={false}
        toolbar={
          <AuthButton
            code="sys:menu:add"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {T.common.add}
          </AuthButton>
        }
      />
      <MenuDialog state={dialog} tree={tree} onClose={() => setDialog(null)} />
    </div>
  );
}
