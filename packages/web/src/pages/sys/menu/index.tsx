import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { buildTree, type MenuType } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { menuApi, type MenuRow } from '../../../api/system.api';
import { AuthAddButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { menuIcon } from '../../../layouts/menu-icon';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { MENU_TEXT } from '../../../locales/menu.zh-CN';
import { STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { MenuDialog, type MenuDialogState } from './components/menu-dialog';
import { menuHidden, menuIconName, menuTitle } from './menu-row';

interface Filters {
  menuName?: string;
  status?: number;
}

const TYPE_LABEL: Record<MenuType, { text: string; color: string }> = {
  M: { text: MENU_TEXT.typeM, color: 'blue' },
  C: { text: MENU_TEXT.typeC, color: 'green' },
  F: { text: MENU_TEXT.typeF, color: 'orange' },
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
      title: MENU_TEXT.name,
      key: 'title',
      minWidth: 200,
      text: menuTitle,
      render: (_: unknown, row) => menuTitle(row),
      search: { name: 'menuName', width: 200 },
    },
    {
      title: MENU_TEXT.icon,
      key: 'icon',
      kind: 'status',
      width: 60,
      align: 'center',
      render: (_: unknown, row) => (row.type === 'F' ? null : menuIcon(menuIconName(row))),
    },
    {
      title: MENU_TEXT.type,
      dataIndex: 'type',
      kind: 'status',
      width: 70,
      render: (type: MenuType) => <Tag color={TYPE_LABEL[type]?.color}>{TYPE_LABEL[type]?.text ?? type}</Tag>,
    },
    { title: MENU_TEXT.code, dataIndex: 'code', width: 170 },
    // Technical columns a narrower screen leaves to the edit dialog.
    { title: MENU_TEXT.perms, dataIndex: 'perms', width: 160, hideOrder: 2 },
    { title: MENU_TEXT.path, dataIndex: 'path', width: 160, hideOrder: 1 },
    {
      title: MENU_TEXT.level,
      dataIndex: 'level',
      kind: 'status',
      width: 90,
      render: (level: number) => (level === 1 ? MENU_TEXT.level1 : MENU_TEXT.level0),
    },
    { title: MENU_TEXT.orderNum, dataIndex: 'orderNum', kind: 'number', width: 60 },
    {
      title: MENU_TEXT.hidden,
      key: 'hidden',
      kind: 'status',
      width: 60,
      render: (_: unknown, row) => (menuHidden(row) ? COMMON_TEXT.yes : COMMON_TEXT.no),
    },
    {
      title: COMMON_TEXT.status,
      dataIndex: 'status',
      kind: 'status',
      width: 70,
      search: { options: STATUS_OPTIONS, width: 120 },
      render: (status: number) => <StatusTag status={status} />,
    },
    actionsColumn<MenuRow>([
      {
        key: 'addChild',
        label: MENU_TEXT.addChild,
        code: 'sys:menu:add',
        hidden: (row) => row.type === 'F',
        onClick: (row) => setDialog({ mode: 'add', parent: row }),
      },
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'sys:menu:edit',
        onClick: (row) => setDialog({ mode: 'edit', menu: row }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'sys:menu:remove',
        danger: true,
        confirm: () => ({ title: COMMON_TEXT.confirmRemove }),
        onClick: (row) => remove.mutateAsync(row.menuId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{MENU_TEXT.title}</h2>
      <TablePage<MenuRow, Filters>
        name="menu-filter"
        rowKey="menuId"
        columns={columns}
        queryKey={queryKeys.menu.lists()}
        fetchAll={(filters) => menuApi.list(filters).then((res) => res.data)}
        select={toTree}
        paged={false}
        toolbar={<AuthAddButton code="sys:menu:add" onClick={() => setDialog({ mode: 'add' })} />}
      />
      <MenuDialog state={dialog} tree={tree} onClose={() => setDialog(null)} />
    </div>
  );
}
