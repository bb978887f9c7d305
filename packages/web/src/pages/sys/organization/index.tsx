import { useState } from 'react';
import { buildTree } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { deptApi, type Dept } from '../../../api/system.api';
import { AuthAddButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { DEPT_TEXT } from '../../../locales/dept.zh-CN';
import { STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { DeptDialog, type DeptDialogState } from './components/dept-dialog';

interface Filters {
  deptName?: string;
  status?: number;
}

/** Departments in sibling order, as the tree the flat list describes. */
const toTree = (rows: Dept[]) =>
  withoutEmptyChildren(
    buildTree(rows, (d) => d.deptId),
    (a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0),
  );

/** 机构管理: the department tree (SYS-03, SYS-04). */
export default function OrganizationPage() {
  const [dialog, setDialog] = useState<DeptDialogState | null>(null);
  const remove = useListMutation({
    mutationFn: (deptId: number) => deptApi.remove(deptId),
    invalidate: [queryKeys.dept.all()],
  });

  const columns: PageColumn<Dept>[] = [
    // The tree's indentation and expander sit in this column.
    {
      title: DEPT_TEXT.name,
      dataIndex: 'deptName',
      minWidth: 220,
      search: { label: DEPT_TEXT.filterName, width: 200 },
    },
    { title: DEPT_TEXT.leader, dataIndex: 'leader', width: 110 },
    { title: DEPT_TEXT.phone, dataIndex: 'phone', width: 130 },
    { title: DEPT_TEXT.orderNum, dataIndex: 'orderNum', kind: 'number' },
    {
      title: COMMON_TEXT.status,
      dataIndex: 'status',
      kind: 'status',
      width: 80,
      search: { options: STATUS_OPTIONS, width: 140 },
      render: (status: number) => <StatusTag status={status} />,
    },
    { title: COMMON_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<Dept>([
      {
        key: 'addChild',
        label: DEPT_TEXT.addChild,
        code: 'sys:dept:add',
        onClick: (dept) => setDialog({ mode: 'add', parentId: dept.deptId }),
      },
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        code: 'sys:dept:edit',
        onClick: (dept) => setDialog({ mode: 'edit', dept }),
      },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: 'sys:dept:remove',
        danger: true,
        confirm: () => ({ title: COMMON_TEXT.confirmRemove }),
        onClick: (dept) => remove.mutateAsync(dept.deptId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{DEPT_TEXT.title}</h2>
      <TablePage<Dept, Filters>
        name="dept-filter"
        rowKey="deptId"
        columns={columns}
        queryKey={queryKeys.dept.lists()}
        fetchAll={(filters) => deptApi.list(filters).then((res) => res.data)}
        select={toTree}
        paged={false}
        table={{ expandable: { defaultExpandAllRows: true } }}
        toolbar={<AuthAddButton code="sys:dept:add" onClick={() => setDialog({ mode: 'add' })} />}
      />
      <DeptDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
